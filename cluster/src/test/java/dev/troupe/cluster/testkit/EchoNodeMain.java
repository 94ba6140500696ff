package dev.troupe.cluster.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behaviors;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

/**
 * The smallest node a {@link ChildJvm} can run: an actor system that answers {@code ping N} on stdin
 * with {@code pong N} from an actor, bound to a loopback address it is given (so tests can check the
 * address is its own). Prints {@code READY <pid>} once up; exits when stdin closes.
 */
public final class EchoNodeMain {

    private EchoNodeMain() {
    }

    /**
     * @param args the loopback host to bind
     * @throws Exception if it cannot start
     */
    public static void main(String[] args) throws Exception {
        final ActorSystem system = ActorSystem.create("echo", ActorSystemSettings.builder().daemonThreads(true).build());
        final ActorRef<String> echo = system.spawn(Behaviors.receiveMessage(m -> {
            synchronized (System.out) {
                System.out.println("pong " + m);
                System.out.flush();
            }
            return Behaviors.same();
        }), "echo");
        try (ServerSocket bound = new ServerSocket()) {
            bound.bind(new InetSocketAddress(args[0], 0));
            System.out.println("READY " + ProcessHandle.current().pid() + " " + bound.getInetAddress().getHostAddress());
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("ping ")) {
                    echo.tell(line.substring(5));
                }
            }
        }
        system.terminate().toCompletableFuture().join();
    }
}
