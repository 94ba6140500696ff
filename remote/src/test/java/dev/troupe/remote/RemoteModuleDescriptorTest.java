package dev.troupe.remote;

import dev.troupe.actor.architecture.ModuleSurface;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The module descriptor: the compiler lets other modules reach the API, never the internals; on the module path the transport runs. */
class RemoteModuleDescriptorTest {

    @Test
    void theDescriptorExportsTheApiAndSpiAndTheCompilerRefusesTheInternals() {
        assertThat(ModuleSurface.check("dev.troupe.remote")).containsExactly("dev.troupe.remote", "dev.troupe.remote.jackson");
    }

    /**
     * An application on the module path (the runtime and the transport as modules, Agrona opened to
     * its module) tells an actor of another system through two transports on loopback: the
     * descriptors of actor and remote name every module they need at run time.
     */
    @Test
    void anApplicationOnTheModulePathTellsAcrossTwoTransports() {
        final String main = """
            import dev.troupe.actor.ActorPath;
            import dev.troupe.actor.ActorSystem;
            import dev.troupe.actor.Behaviors;
            import dev.troupe.remote.RemoteSettings;
            import dev.troupe.remote.RemoteTransport;

            import java.util.concurrent.CountDownLatch;
            import java.util.concurrent.TimeUnit;

            public class Main {
                public static void main(String[] args) throws Exception {
                    final CountDownLatch received = new CountDownLatch(1);
                    final ActorSystem a = ActorSystem.create("a");
                    final ActorSystem b = ActorSystem.create("b");
                    final RemoteSettings settings = RemoteSettings.builder().bindHost("127.0.0.1").bindPort(0)
                        .secret("module-path-test-secret-of-32-bytes").build();
                    try (RemoteTransport ta = RemoteTransport.start(a, settings); RemoteTransport tb = RemoteTransport.start(b, settings)) {
                        final ActorPath echo = tb.publish(b.spawn(Behaviors.<String>receiveMessage(m -> {
                            received.countDown();
                            return Behaviors.same();
                        }), "echo"), String.class);
                        ta.actorRef(echo, String.class).tell("hello");
                        System.out.println("received=" + received.await(30, TimeUnit.SECONDS)
                            + " module=" + RemoteTransport.class.getModule().getName());
                    } finally {
                        a.terminate();
                        b.terminate();
                    }
                }
            }
            """;
        final String output = ModuleSurface.runOnModulePath("dev.troupe.remote", main,
            List.of("--add-opens", "java.base/jdk.internal.misc=org.agrona"), Duration.ofSeconds(60));
        assertThat(output).contains("received=true module=dev.troupe.remote");
    }
}
