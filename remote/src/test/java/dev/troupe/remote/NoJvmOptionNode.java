package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behaviors;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started without {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED}
 * ({@code NoJvmOptionNode <port>}), for {@link JvmOptionCheckTest}: a local actor system works, the
 * transport refuses to start with {@link MissingJvmOptionException} (twice: the refusal leaves no
 * failed class initialization behind), the port stays unbound, and the local system goes on working
 * and terminates. Prints one line per step; any other outcome prints {@code UNEXPECTED} and exits 1.
 */
public final class NoJvmOptionNode {

    private NoJvmOptionNode() {
    }

    public static void main(String[] args) throws Exception {
        final int port = Integer.parseInt(args[0]);
        final ActorSystem system = ActorSystem.create("local");
        final ActorRef<Ping> echo = system.spawn(RemoteTestKit.echo(), "echo");
        askEcho(echo, 1);
        for (String attempt : new String[] {"REFUSED", "REFUSED-AGAIN"}) {
            try {
                RemoteTransport.start(system, RemoteTestKit.settings().bindPort(port).build());
                System.out.println("UNEXPECTED the transport started");
                System.exit(1);
            } catch (MissingJvmOptionException e) {
                System.out.println(attempt + " " + e.jvmOption());
                if (attempt.equals("REFUSED")) {
                    System.out.println("MESSAGE-BEGIN");
                    System.out.println(e.getMessage());
                    System.out.println("MESSAGE-END");
                }
            }
        }
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            System.out.println("PORT-FREE " + s.getLocalPort());
        }
        askEcho(echo, 2);
        system.terminate();
        system.whenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
        System.out.println("TERMINATED");
        System.out.flush();
    }

    private static void askEcho(ActorRef<Ping> echo, int n) throws Exception {
        final Ping.Pong pong = AskPattern.ask(echo, (ActorRef<Ping.Pong> r) -> new Ping(n, r), Duration.ofSeconds(10))
            .toCompletableFuture().get(10, TimeUnit.SECONDS);
        System.out.println("LOCAL-OK " + pong);
    }
}
