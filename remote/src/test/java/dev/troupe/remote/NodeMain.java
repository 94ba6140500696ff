package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Terminated;
import dev.troupe.remote.json.Greeting;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A node in its own JVM for the multi-node tests: {@code NodeMain <system> <port>}. Runs an
 * {@code echo} actor, prints {@code READY <uid>}, and reads commands from stdin:
 * {@code watch <path>} watches a remote actor and prints {@code TERMINATED <path>} when it stops;
 * {@code greet <path>} sends a {@link Greeting} whose replyTo is the {@code greeter} actor (which
 * answers every greeting to its replyTo) to a remote actor;
 * {@code await-watched} prints {@code WATCHED <n>} once other nodes hold a watch on one of its
 * actors (polling its own transport's metrics, so the test can wait on the line instead of
 * sleeping); {@code await-count <n>} prints {@code COUNT <n>} once the published {@code sink}
 * actor (it counts the {@link Greeting}s it receives) has counted n, or what it counted after 30 s;
 * {@code exit} shuts down gracefully. Every dead letter is printed as
 * {@code DEADLETTER <reason> <path>}. An optional third argument sets the transport's idle
 * timeout in milliseconds.
 */
public final class NodeMain {

    private NodeMain() {
    }

    public static void main(String[] args) throws Exception {
        final ActorSystem system = ActorSystem.create(args[0]);
        final RemoteSettings.Builder settings = RemoteTestKit.settings().bindPort(Integer.parseInt(args[1]));
        if (args.length > 2) {
            settings.idleTimeout(java.time.Duration.ofMillis(Long.parseLong(args[2])));
        }
        final RemoteTransport transport = RemoteTransport.start(system, settings.build());
        transport.publish(system.spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final java.util.concurrent.atomic.AtomicLong sunk = new java.util.concurrent.atomic.AtomicLong();
        transport.publish(system.spawn(Behaviors.<Greeting>receiveMessage(g -> {
            sunk.incrementAndGet();
            return Behaviors.same();
        }), "sink"), Greeting.class);
        final ActorRef<Greeting> greeter = system.spawn(Behaviors.<Greeting>receive((ctx, g) -> {
            g.replyTo().tell(new Greeting("re: " + g.text(), g.numbers(), ctx.self()));
            return Behaviors.same();
        }), "greeter");
        system.deadLetters().subscribe(d -> {
            System.out.println("DEADLETTER " + d.reason().tag() + " " + d.recipient());
            System.out.flush();
        });
        System.out.println("READY " + Long.toHexString(system.uid()) + " " + transport.address());
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("watch ")) {
                final ActorRef<Object> target = transport.actorRef(line.substring(6).trim(), Object.class);
                system.spawnAnonymous(Behaviors.<Void>setup(ctx -> {
                    ctx.watch(target);
                    System.out.println("WATCHING " + target.path());
                    System.out.flush();
                    return Behaviors.<Void>receiveSignal((c, s) -> {
                        if (s instanceof Terminated) {
                            System.out.println("TERMINATED " + ((Terminated) s).ref().path());
                            System.out.flush();
                        }
                        return Behaviors.same();
                    });
                }));
            } else if (line.startsWith("greet ")) {
                transport.actorRef(line.substring(6).trim(), Greeting.class)
                    .tell(new Greeting("hello", java.util.List.of(1), greeter));
            } else if (line.equals("await-watched")) {
                final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                int held = 0;
                while (System.nanoTime() - deadline < 0) {
                    held = 0;
                    for (PeerMetrics p : transport.metrics().peers()) {
                        held += p.watchesHeldByPeer();
                    }
                    if (held > 0) {
                        break;
                    }
                    Thread.sleep(10); // polling a condition, bounded by the deadline
                }
                System.out.println((held > 0 ? "WATCHED " : "NOT-WATCHED ") + held);
                System.out.flush();
            } else if (line.equals("await-recovered")) {
                // after a pause of this process: its own failure detector, running again, may declare
                // the other node lost when it sees the gap (or not, if a heartbeat was read first),
                // and reachable again later; the refs it holds to that node are dead letters in
                // between. Waits until every peer is active with a heartbeat seen just now (phi
                // under 1: no loss can follow while they keep coming), or 30 s.
                final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                boolean recovered = false;
                while (!recovered && System.nanoTime() - deadline < 0) {
                    recovered = !transport.metrics().peers().isEmpty();
                    for (PeerMetrics p : transport.metrics().peers()) {
                        recovered &= p.state() == AssociationState.ACTIVE && p.phi() < 1.0;
                    }
                    if (!recovered) {
                        Thread.sleep(10); // polling a condition, bounded by the deadline
                    }
                }
                System.out.println(recovered ? "RECOVERED" : "NOT-RECOVERED");
                System.out.flush();
            } else if (line.startsWith("await-count ")) {
                final long want = Long.parseLong(line.substring(12).trim());
                final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                while (sunk.get() < want && System.nanoTime() - deadline < 0) {
                    Thread.sleep(10); // polling a condition, bounded by the deadline
                }
                System.out.println("COUNT " + sunk.get());
                System.out.flush();
            } else if (line.equals("exit")) {
                break;
            }
        }
        transport.shutdown(java.time.Duration.ofSeconds(1));
        system.terminate().toCompletableFuture().join();
        System.exit(0);
    }
}
