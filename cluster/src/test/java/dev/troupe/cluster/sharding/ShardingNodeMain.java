package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetter;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.discovery.DnsDiscovery;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.cluster.discovery.StaticDiscovery;

import dev.troupe.cluster.sharding.internal.RegionProtocol;
import dev.troupe.cluster.sharding.internal.ShardRouter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A sharding node in a child JVM for {@link ShardingMultiJvmTest}: it binds {@code host:port},
 * finds the others through DNS ({@code dns:<server host>:<server port>:<name>}) or a fixed list
 * ({@code static:<host:port>,...}), initializes {@link Tally} and reports every entity start,
 * stop and processed message, and every dead letter of a {@link Tally.Add}, to the checker actor
 * of the test's JVM ({@link Tally.Report}s). Prints {@code READY}. Commands on stdin:
 * <ul>
 *   <li>{@code traffic <entities> <count> <per second, 0 for no pacing>}: a thread tells
 *       {@code count} {@link Tally.Add}s with this node's sequence numbers through entity refs,
 *       printing {@code SENT <n>} every 5,000 and {@code SENT-DONE <n>} at the end;</li>
 *   <li>{@code probe <entities> <first k>}: one more {@code Add} to each entity, {@code PROBED};</li>
 *   <li>{@code shards}: {@code SHARDS <reachable up members> <hosted shards> <held messages> <members, any status>
 *       <shards routed straight to a node that is no reachable up member>};</li>
 *   <li>{@code leave}: leaves gracefully, {@code LEFT} once removed;</li>
 *   <li>{@code down <host> <port>}: {@code Cluster.down} of that member, {@code DOWNED ok} or {@code DOWNED refused <reason>};</li>
 *   <li>{@code flush}: once nothing is queued for other nodes, a SYNC report to the checker, then {@code FLUSHED};</li>
 *   <li>{@code dead}: {@code DEAD {class/reason=count, ...}}, every dead letter of this node so far.</li>
 *   <li>{@code queues}: {@code QUEUES ...}, each peer's queue and counts, and the region's (for failure messages).</li>
 * </ul>
 * Closing stdin stops the node.
 *
 * <p>Arguments: node name, node index (its sequence numbers), host, port, discovery, checker path,
 * and optionally a downing strategy with its stable-after ({@code keep-majority:<millis>}).
 * The node's failure detection is {@link RemoteNodes#patient}.
 */
public final class ShardingNodeMain {

    private ShardingNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        final String name = args[0];
        final int index = Integer.parseInt(args[1]);
        final String host = args[2];
        final int port = Integer.parseInt(args[3]);
        final MemberDiscovery discovery;
        if (args[4].startsWith("dns:")) {
            final String[] p = args[4].substring(4).split(":");
            discovery = DnsDiscovery.addresses(p[2], port, new InetSocketAddress(p[0], Integer.parseInt(p[1])), Duration.ofMillis(500));
        } else {
            discovery = StaticDiscovery.of(args[4].substring("static:".length()).split(","));
        }
        final RemoteSink sink = new RemoteSink();
        final RemoteNodes.Node node;
        if (args.length > 6 && args[6].startsWith("keep-majority:")) {
            node = RemoteNodes.startPatient(name, host, port, discovery, sink, dev.troupe.cluster.DowningStrategy.KEEP_MAJORITY,
                Duration.ofMillis(Long.parseLong(args[6].substring("keep-majority:".length()))));
        } else {
            node = RemoteNodes.startPatient(name, host, port, discovery, sink);
        }
        // Connected before any report: while an association is not connected its queue is short (maxQueuedMessages)
        final java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
        final dev.troupe.actor.ActorPath checkerPath = dev.troupe.actor.ActorPath.parse(args[5]);
        node.remote().addAssociationListener(e -> {
            if (e instanceof dev.troupe.remote.AssociationEvent.Connected && e.address().root().equals(checkerPath.root())) {
                connected.countDown();
            }
        });
        sink.checker = node.remote().actorRef(checkerPath, Tally.Report.class);
        node.remote().connect(checkerPath);
        if (!connected.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to the checker " + checkerPath);
        }
        final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> deadByKind = new java.util.concurrent.ConcurrentHashMap<>();
        node.system().deadLetters().subscribe((DeadLetter d) -> {
            final Object m = d.message() instanceof RegionProtocol.EntityEnvelope env ? env.message() : d.message();
            deadByKind.computeIfAbsent(m.getClass().getSimpleName() + "/" + d.reason().tag(), k -> new java.util.concurrent.atomic.AtomicLong()).incrementAndGet();
            final Long seq = Books.seqOf(d.message());
            if (seq != null) {
                sink.checker.tell(new Tally.Report(Tally.Report.DEAD, "", d.reason().tag(), seq, null));
            } else if (Books.isAnonymousEnvelope(d)) {
                // dropped from the outbound buffer as bytes: counted, but which message it was is not known (seq -1)
                sink.checker.tell(new Tally.Report(Tally.Report.DEAD, "", d.reason().tag(), -1, null));
            }
        });
        // The membership events with the time, on stderr (the test's log), to read the order of events after a failure
        node.cluster().subscribe(node.system().spawn(dev.troupe.actor.Behaviors.<dev.troupe.cluster.ClusterEvent>receiveMessage(e -> {
            System.err.println(java.time.LocalTime.now() + " " + name + " event " + e + " -> members " + node.cluster().state().members());
            return dev.troupe.actor.Behaviors.same();
        }), "events"), dev.troupe.cluster.ClusterEvent.class);
        print("READY " + Long.toHexString(node.system().uid()));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            final String[] cmd = line.trim().split(" ");
            switch (cmd[0]) {
                case "traffic" -> traffic(node.sharding(), index, Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]), Integer.parseInt(cmd[3]));
                case "probe" -> {
                    final int entities = Integer.parseInt(cmd[1]);
                    final int first = Integer.parseInt(cmd[2]);
                    for (int e = 0; e < entities; e++) {
                        final long seq = Books.seq(index, first + e);
                        node.sharding().entityRefFor(Tally.KEY, Books.entityOf(seq, entities)).tell(new Tally.Add(seq));
                    }
                    print("PROBED");
                }
                case "shards" -> {
                    final ShardingMetrics m = node.sharding().metrics(Tally.KEY);
                    final ClusterState state = node.cluster().state();
                    print("SHARDS " + state.reachableUpAddresses().size() + " " + m.hostedShards() + " " + m.bufferedMessages()
                        + " " + state.members().size() + " " + staleRoutes(node, state));
                }
                case "leave" -> node.cluster().leave().thenRun(() -> print("LEFT"));
                case "down" -> node.cluster().down(new Address(RemoteNodes.SYSTEM, cmd[1], Integer.parseInt(cmd[2])))
                    .whenComplete((ok, failure) -> print(failure == null ? "DOWNED ok" : "DOWNED refused " + failure));
                case "dead" -> print("DEAD " + new java.util.TreeMap<>(deadByKind));
                case "queues" -> print("QUEUES " + queues(node));
                case "flush" -> flush(node, sink, name);
                default -> print("UNKNOWN " + line);
            }
        }
        node.cluster().leave().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> null).join();
        node.close();
    }

    /**
     * Waits (bounded) until nothing is queued for any peer (what a dead peer's queue held has become
     * dead letters), then sends the checker a SYNC report: once it arrives, every report this node
     * sent before it has arrived too (one connection, in order). Prints {@code FLUSHED}.
     */
    private static void flush(RemoteNodes.Node node, RemoteSink sink, String name) {
        final Thread t = new Thread(() -> {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && queued(node) > 0) {
                LockSupport.parkNanos(50_000_000L); // between two polls of a condition
            }
            sink.checker.tell(new Tally.Report(Tally.Report.SYNC, "", name, queued(node), null));
            print("FLUSHED " + queued(node));
        }, "flush");
        t.setDaemon(true);
        t.start();
    }

    /** @return every peer's state as this node sees it: what is queued for it, sent to and received from it (for failure messages) */
    private static String queues(RemoteNodes.Node node) {
        final StringBuilder sb = new StringBuilder();
        for (dev.troupe.remote.PeerMetrics p : node.remote().metrics().peers()) {
            sb.append(p.address()).append(" queued ").append(p.outboundQueuedBytes()).append(" B, sent ").append(p.messagesSent())
                .append(", received ").append(p.messagesReceived()).append(", overflows ").append(p.outboundOverflows())
                .append(", reconnects ").append(p.reconnects()).append("; ");
        }
        final ShardingMetrics m = node.sharding().metrics(Tally.KEY);
        return sb.append("read pauses ").append(node.remote().metrics().inboundReadPauses()).append(", hosted shards ")
            .append(m.hostedShards()).append(", buffered ").append(m.bufferedMessages()).append(", entities ").append(m.activeEntities()).toString();
    }

    /**
     * @return shards whose senders still tell a remote region directly although its node is no reachable {@code UP} member
     *         in {@code state}: the region learns of a change from the membership's events, after the state shows it, and until
     *         then a message to such a shard goes to that node's connection instead of waiting in the region
     */
    private static int staleRoutes(RemoteNodes.Node node, ClusterState state) {
        final ShardRouter router = node.sharding().handle(Tally.KEY).router();
        final Set<Address> reachable = state.reachableUpAddresses();
        final int shards = node.sharding().metrics(Tally.KEY).numberOfShards();
        int stale = 0;
        for (int s = 0; s < shards; s++) {
            final ActorRef<Object> to = router.route(s);
            if (to != null && !reachable.contains(Address.of(to.path()))) {
                stale++;
            }
        }
        return stale;
    }

    private static long queued(RemoteNodes.Node node) {
        long n = 0;
        for (dev.troupe.remote.PeerMetrics p : node.remote().metrics().peers()) {
            if (!p.address().contains("checker")) {
                n += p.outboundQueuedBytes();
            }
        }
        return n;
    }

    private static void traffic(ClusterSharding sharding, int index, int entities, int count, int perSecond) {
        @SuppressWarnings("unchecked")
        final EntityRef<Tally.Command>[] refs = new EntityRef[entities];
        for (int e = 0; e < entities; e++) {
            refs[e] = sharding.entityRefFor(Tally.KEY, "e-" + e);
        }
        final Thread t = new Thread(() -> {
          try {
            final long start = System.nanoTime();
            for (int k = 0; k < count; k++) {
                final long seq = Books.seq(index, k);
                refs[(int) ((seq % Books.SPAN) % entities)].tell(new Tally.Add(seq));
                if ((k + 1) % 5000 == 0) {
                    print("SENT " + (k + 1));
                }
                if (perSecond > 0 && k % 100 == 99) {
                    // the sender's pace, so membership changes happen while traffic flows (nothing waits on it)
                    final long due = start + (long) (k + 1) * 1_000_000_000L / perSecond;
                    final long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
            }
            print("SENT-DONE " + count);
          } catch (Throwable e) {
            final java.io.StringWriter w = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(w));
            print("TRAFFIC-FAILED " + w.toString().replace('\n', '|'));
          }
        }, "traffic");
        t.setDaemon(true);
        t.start();
    }

    /** Reports to the checker in the test's JVM; the entity waits for the checker to record its stop. */
    private static final class RemoteSink implements Tally.Sink {
        volatile ActorRef<Tally.Report> checker;

        @Override
        public void started(String entityId, String node) {
            checker.tell(new Tally.Report(Tally.Report.STARTED, entityId, node, 0, null));
        }

        @Override
        public void stopped(String entityId, String node) {
            checker.tell(new Tally.Report(Tally.Report.STOPPED, entityId, node, 0, null));
        }

        @Override
        public void processed(String entityId, long seq, String node) {
            checker.tell(new Tally.Report(Tally.Report.PROCESSED, entityId, node, seq, null));
        }

        @Override
        public boolean stopping(String entityId, String node, ActorRef<Tally.Command> self) {
            checker.tell(new Tally.Report(Tally.Report.STOPPED, entityId, node, 0, self));
            return true;
        }
    }

    private static void print(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
