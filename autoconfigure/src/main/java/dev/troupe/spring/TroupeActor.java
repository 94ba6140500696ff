package dev.troupe.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code @Bean} method returning {@code Behavior<T>} as an actor: the starter
 * spawns it as a top-level actor and registers an {@code ActorRef<T>} bean for it.
 *
 * <pre>{@code
 * @Bean
 * @TroupeActor
 * Behavior<Counter.Command> counter() {
 *     return Counter.create();
 * }
 *
 * // elsewhere
 * CounterController(ActorRef<Counter.Command> counter) { ... }
 * // or, when two actors take the same message type:
 * CounterController(@Qualifier("counter") ActorRef<Counter.Command> counter) { ... }
 * }</pre>
 *
 * <p>The ref bean is named {@code <beanName>Ref} and carries the qualifier
 * {@code <beanName>}, so {@code @Qualifier("counter")} and {@code @Qualifier("counterRef")}
 * both select it. The actor is named after the bean unless {@link #name()} says otherwise
 * and gets per-actor meters tagged {@code actor=<name>}.
 *
 * <p>With {@link #serviceKey()} the actor is also registered with the receptionist:
 *
 * <pre>{@code
 * @Bean
 * @TroupeActor(serviceKey = "inventory")
 * Behavior<Inventory.Command> inventory() { ... }   // found by Routers.group(ServiceKey.create(Inventory.Command.class, "inventory"))
 * }</pre>
 *
 * <p>Startup fails, naming the bean, when the return type is a raw or wildcard
 * {@code Behavior}, or when two actor beans use one actor name.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TroupeActor {

    /**
     * @return the actor's name, unique among top-level actors; empty means the bean name
     */
    String name() default "";

    /**
     * @return the dispatcher to run on (configured under {@code troupe.dispatchers}); empty means the default
     */
    String dispatcher() default "";

    /**
     * @return a bounded mailbox capacity; 0 means unbounded, -1 the system's default mailbox
     */
    int mailboxCapacity() default -1;

    /**
     * @return whether the actor gets its own meters tagged {@code actor=<name>}
     */
    boolean metrics() default true;

    /**
     * Registers the actor with the {@code Receptionist} under
     * {@code ServiceKey.create(<message type>, serviceKey)}, so group routers find it, on every
     * member once the cluster runs ({@code troupe.cluster.enabled}); a router is declared with
     * {@code troupe.cluster.routers.<name>.service-key} or {@code Routers.group(key)}. Needs
     * {@code troupe-cluster} on the class path.
     *
     * @return the service key's id; empty means no registration
     */
    String serviceKey() default "";
}
