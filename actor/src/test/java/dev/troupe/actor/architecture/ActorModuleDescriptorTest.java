package dev.troupe.actor.architecture;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The module descriptor: the compiler lets other modules reach the API and the SPI, never the runtime; on the module path the runtime runs. */
class ActorModuleDescriptorTest {

    @Test
    void theDescriptorExportsTheApiAndSpiAndTheCompilerRefusesTheInternals() {
        assertThat(ModuleSurface.check("dev.troupe.actor")).containsExactly("dev.troupe.actor", "dev.troupe.actor.metrics",
            "dev.troupe.actor.routing", "dev.troupe.actor.spi", "dev.troupe.actor.spi.instrumentation", "dev.troupe.actor.spi.routing");
    }

    /**
     * An application on the module path with the runtime alone asks an actor, and the dispatcher reads
     * its threads' allocation: the descriptor names every module the runtime needs at run time (JCTools
     * requires {@code jdk.unsupported} only statically, the allocation counter is {@code jdk.management}'s).
     */
    @Test
    void anApplicationOnTheModulePathAsksAnActor() {
        final String main = """
            import dev.troupe.actor.ActorRef;
            import dev.troupe.actor.ActorSystem;
            import dev.troupe.actor.AskPattern;
            import dev.troupe.actor.Behaviors;

            import java.time.Duration;
            import java.util.concurrent.TimeUnit;

            public class Main {
                record Ping(ActorRef<String> replyTo) {
                }

                public static void main(String[] args) throws Exception {
                    final ActorSystem system = ActorSystem.create("modules");
                    try {
                        final ActorRef<Ping> ponger = system.spawn(Behaviors.<Ping>receiveMessage(p -> {
                            p.replyTo().tell("pong");
                            return Behaviors.same();
                        }), "ponger");
                        final String reply = AskPattern.<Ping, String>ask(ponger, Ping::new, Duration.ofSeconds(30), system)
                            .toCompletableFuture().get(30, TimeUnit.SECONDS);
                        System.out.println("reply=" + reply + " counted=" + (system.metrics().dispatchers().get(0).allocatedBytes() > 0));
                    } finally {
                        system.terminate();
                    }
                }
            }
            """;
        assertThat(ModuleSurface.runOnModulePath("dev.troupe.actor", main, List.of(), Duration.ofSeconds(60)))
            .contains("reply=pong counted=true");
    }
}
