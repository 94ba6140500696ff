package dev.troupe.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Replaces a {@code @TroupeActor} bean's actor with a {@code TestProbe} in a Spring test, as
 * {@code @MockitoBean} replaces a bean: the actor is not spawned, its {@code ActorRef<T>} bean is
 * the probe's ref (with the same name, qualifier and type, so everything that injects it talks to
 * the probe), and the annotated field gets the probe.
 *
 * <pre>{@code
 * @SpringBootTest
 * class OrderServiceTests {
 *
 *     @TroupeActorProbe("inventory")
 *     TestProbe<Inventory.Command> inventory;
 *
 *     @Autowired
 *     OrderService orders;      // injected with the probe's ref instead of the inventory actor's
 *
 *     @Test
 *     void ordersReserveStock() {
 *         orders.place("A-1", 2);
 *         Inventory.Reserve reserve = inventory.expectMessageClass(Inventory.Reserve.class);
 *         reserve.replyTo().tell(new Inventory.Reserved("A-1", 2));
 *     }
 * }
 * }</pre>
 *
 * <p>The field's type is {@code TestProbe<T>} with the actor's message type {@code T}. One probe
 * serves the whole context (like the context itself, it is shared by the tests that use the same
 * configuration), so a test should expect every message it causes. The probe's path is the
 * probe's own, not {@code /user/<name>}: remote nodes cannot address it by the actor's path.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TroupeActorProbe {

    /**
     * @return the name of the {@code @TroupeActor} bean (the {@code @Bean} method's name) whose actor
     *         the probe replaces; empty for the one actor bean of the field's message type
     */
    String value() default "";
}
