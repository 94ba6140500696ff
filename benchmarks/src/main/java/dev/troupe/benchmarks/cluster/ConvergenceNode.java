package dev.troupe.benchmarks.cluster;

import com.typesafe.config.ConfigFactory;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterEvent;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Subscribe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One node of {@link ClusterConvergence}, in a child JVM: a Troupe or a Pekko cluster member on
 * 127.0.0.1, each with its system's default cluster settings. It prints {@code READY <epoch ms>}
 * once its cluster has started, then {@code UP|UNREACHABLE|REACHABLE|REMOVED <port> <epoch ms>} for each
 * membership event about another node (the wall clock is the machine's: every node and the
 * harness read the same one). Exits when stdin closes.
 *
 * <p>Arguments: {@code troupe <port> <discovery file>} (the file lists {@code host:port} lines, read
 * at each discovery round, as an orchestrator's endpoints would be), or {@code pekko <port> <seed port>}
 * (Pekko's defaults plus its split-brain resolver, whose defaults are keep-majority after 20 s
 * stable: without a downing provider Pekko never removes an unreachable member).
 */
public final class ConvergenceNode {

    private ConvergenceNode() {
    }

    public static void main(String[] args) throws Exception {
        final int port = Integer.parseInt(args[1]);
        final Runnable stop = "troupe".equals(args[0]) ? troupe(port, Path.of(args[2])) : pekko(port, Integer.parseInt(args[2]));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // nothing to do: the harness only closes stdin
        }
        stop.run();
    }

    static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** Candidates from a file the harness rewrites. */
    private static final class FileDiscovery implements MemberDiscovery {
        private final Path file;

        FileDiscovery(Path file) {
            this.file = file;
        }

        @Override
        public CompletionStage<List<HostPort>> lookup() {
            try {
                final List<HostPort> out = new ArrayList<>();
                for (String l : Files.readAllLines(file)) {
                    if (!l.isBlank()) {
                        out.add(HostPort.parse(l.trim()));
                    }
                }
                return CompletableFuture.completedFuture(out);
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    }

    private static Runnable troupe(int port, Path discovery) {
        final ActorSystem system = ActorSystem.create("bench", ActorSystemSettings.builder().daemonThreads(true).build());
        final RemoteTransport remote = RemoteTransport.start(system, RemoteSettings.builder().bindHost("127.0.0.1").bindPort(port)
            .secret("cluster-benchmark-secret-0123456789")
            .serializers(RemoteClusterTransport.registerSerializer(SerializerRegistry.builder()).build()).build());
        final Cluster cluster = Cluster.start(system, ClusterSettings.builder().discovery(new FileDiscovery(discovery)).build(),
            RemoteClusterTransport.create(remote));
        cluster.subscribe(system.spawn(dev.troupe.actor.Behaviors.<ClusterEvent>receiveMessage(e -> {
            final long now = System.currentTimeMillis();
            if (e instanceof ClusterEvent.CurrentClusterState s) {
                for (Member m : s.state().members()) {
                    if (m.status() == MemberStatus.UP && m.address().port() != port) {
                        print("UP " + m.address().port() + " " + now);
                    }
                }
            } else if (e instanceof ClusterEvent.MemberUp up && up.member().address().port() != port) {
                print("UP " + up.member().address().port() + " " + now);
            } else if (e instanceof ClusterEvent.UnreachableMember u) {
                print("UNREACHABLE " + u.member().address().port() + " " + now);
            } else if (e instanceof ClusterEvent.ReachableMember u) {
                print("REACHABLE " + u.member().address().port() + " " + now);
            } else if (e instanceof ClusterEvent.MemberRemoved r && r.member().address().port() != port) {
                print("REMOVED " + r.member().address().port() + " " + now);
            }
            return dev.troupe.actor.Behaviors.same();
        }), "events"), ClusterEvent.class);
        print("READY " + System.currentTimeMillis());
        return () -> {
            cluster.leave().toCompletableFuture().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).exceptionally(t -> null).join();
            system.terminate().toCompletableFuture().join();
        };
    }

    private static Runnable pekko(int port, int seedPort) {
        final org.apache.pekko.actor.typed.ActorSystem<Void> system = org.apache.pekko.actor.typed.ActorSystem.create(
            Behaviors.<Void>setup(ctx -> {
                final org.apache.pekko.actor.typed.ActorRef<org.apache.pekko.cluster.ClusterEvent.ClusterDomainEvent> events =
                    ctx.spawn(Behaviors.<org.apache.pekko.cluster.ClusterEvent.ClusterDomainEvent>receiveMessage(e -> {
                        onPekkoEvent(e, port);
                        return Behaviors.same();
                    }), "events");
                org.apache.pekko.cluster.typed.Cluster.get(ctx.getSystem()).subscriptions()
                    .tell(Subscribe.create(events, org.apache.pekko.cluster.ClusterEvent.ClusterDomainEvent.class));
                return Behaviors.empty();
            }), "bench", ConfigFactory.parseString(String.join("\n",
                "pekko.actor.provider = cluster",
                "pekko.remote.artery.transport = tcp",
                "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
                "pekko.remote.artery.canonical.port = " + port,
                "pekko.cluster.seed-nodes = [\"pekko://bench@127.0.0.1:" + seedPort + "\"]",
                "pekko.cluster.downing-provider-class = \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"",
                "pekko.loglevel = WARNING")).withFallback(ConfigFactory.load()));
        print("READY " + System.currentTimeMillis());
        return () -> {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().join();
        };
    }

    private static void onPekkoEvent(org.apache.pekko.cluster.ClusterEvent.ClusterDomainEvent e, int self) {
        final long now = System.currentTimeMillis();
        // typed subscriptions start with the current state as events
        if (e instanceof org.apache.pekko.cluster.ClusterEvent.MemberUp up) {
            final int p = (Integer) up.member().address().port().get();
            if (p != self) {
                print("UP " + p + " " + now);
            }
        } else if (e instanceof org.apache.pekko.cluster.ClusterEvent.UnreachableMember u) {
            print("UNREACHABLE " + u.member().address().port().get() + " " + now);
        } else if (e instanceof org.apache.pekko.cluster.ClusterEvent.ReachableMember u) {
            print("REACHABLE " + u.member().address().port().get() + " " + now);
        } else if (e instanceof org.apache.pekko.cluster.ClusterEvent.MemberRemoved r) {
            final int p = (Integer) r.member().address().port().get();
            if (p != self) {
                print("REMOVED " + p + " " + now);
            }
        }
    }
}
