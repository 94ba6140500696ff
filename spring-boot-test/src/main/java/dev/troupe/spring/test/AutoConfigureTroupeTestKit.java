package dev.troupe.spring.test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives a Spring test an {@code ActorTestKit} bean bound to the context's {@code ActorSystem}
 * ({@code ActorTestKit.create(system)}): probes and spawned actors live in the application's own
 * system, next to its bean actors, and the system ends with the context, not with the kit.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureTroupeTestKit
 * class InventoryTests {
 *     @Autowired ActorTestKit testKit;
 *     @Autowired ActorRef<Inventory.Command> inventory;
 *
 *     @Test
 *     void reservesStock() {
 *         TestProbe<Inventory.Reserved> probe = testKit.createTestProbe();
 *         inventory.tell(new Inventory.Reserve("A-1", 2, probe.ref()));
 *         probe.expectMessage(new Inventory.Reserved("A-1", 2));
 *     }
 * }
 * }</pre>
 *
 * The kit is the test kit's: take {@code dev.troupe:troupe-actor-testkit} in test scope. An
 * {@code ActorTestKit} bean of the test's own is kept.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(TroupeTestKitAutoConfiguration.class)
public @interface AutoConfigureTroupeTestKit {
}
