package dev.troupe.benchmarks.sharding;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sharded {@code tell} and {@code ask} throughput, Troupe beside Apache Pekko Cluster Sharding
 * typed 1.7.0, each measurement in a fresh JVM with the same flags.
 *
 * <ul>
 *   <li>{@code tell}: {@code senders} sender actors each keep {@code window} messages in flight
 *       to {@code entities} entities through entity refs ({@code entityRef.tell(ping)}, one
 *       pre-built message per sender, entities taken in a fixed stride); each entity answers
 *       with a plain tell to the sender, which then sends the next. Counted: sharded messages
 *       per second (the answers are plain tells, the same for both).</li>
 *   <li>{@code ask}: {@code senders} clients each keep {@code window} asks in flight
 *       ({@code entityRef.ask(replyTo -> new Get(replyTo), timeout)}), the next issued when
 *       one completes. Counted: completed asks per second.</li>
 *   <li>{@code start}: the entity start rate: the same senders as {@code tell}, each telling one
 *       message to each of its share of entities never used before (every round new ids), so
 *       each message starts an entity (and, for Pekko, each new shard asks its coordinator for a
 *       home first). Counted: entities started and answered per second.</li>
 * </ul>
 *
 * <p>Layouts: {@code single}, one node that hosts every shard (for Pekko a one-node cluster
 * over Artery, joined to itself: nothing is serialized, as for Troupe); {@code three}, three
 * Troupe nodes in this JVM over the in-memory network (two thirds of the messages go to another
 * node's region, by direct ref, without serialization; Troupe only); {@code three-remote}, three
 * nodes in this JVM over their real transports on loopback TCP, for both (Troupe's
 * {@code RemoteTransport} with {@link BenchSerializers}, Pekko's Artery TCP with
 * {@link PekkoBenchSerializer}; two thirds of the messages and their answers cross a socket,
 * serialized). Each run warms up with two rounds of a quarter of the messages, then
 * measures one round: messages per second, and the bytes every thread of the JVM allocated
 * during it per message ({@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.sharding.ShardedMessaging \
 *      [--modes tell,ask,start] [--systems troupe,pekko] [--layout single|three|three-remote] [--entities 1000] \
 *      [--senders 4] [--window 64] [--messages 2000000] [--runs 3]
 * </pre>
 */
public final class ShardedMessaging {

    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);

    private ShardedMessaging() {
    }

    /**
     * @param args see the class comment; {@code --child SYSTEM MODE LAYOUT ENTITIES SENDERS WINDOW MESSAGES} runs one measurement
     * @throws Exception if a measurement fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            final String system = args[1];
            final String mode = args[2];
            final String layout = args[3];
            final int entities = Integer.parseInt(args[4]);
            final int senders = Integer.parseInt(args[5]);
            final int window = Integer.parseInt(args[6]);
            final int messages = Integer.parseInt(args[7]);
            final double rate = system.equals("troupe") ? TroupeSide.run(mode, layout, entities, senders, window, messages)
                : PekkoSide.run(mode, layout, entities, senders, window, messages);
            System.out.println("RESULT " + rate + " " + LAST_BYTES_PER_MESSAGE[0]);
            System.exit(0);
        }
        List<String> modes = List.of("tell", "ask");
        List<String> systems = List.of("troupe", "pekko");
        String layout = "single";
        int entities = 1000;
        int senders = 4;
        int window = 64;
        int messages = 2_000_000;
        int runs = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--modes" -> modes = List.of(args[++i].split(","));
                case "--systems" -> systems = List.of(args[++i].split(","));
                case "--layout" -> layout = args[++i];
                case "--entities" -> entities = Integer.parseInt(args[++i]);
                case "--senders" -> senders = Integer.parseInt(args[++i]);
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--messages" -> messages = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (!layout.equals("single") && !layout.equals("three") && !layout.equals("three-remote")) {
            throw new IllegalArgumentException("--layout is single, three or three-remote: " + layout);
        }
        final List<String> used = new ArrayList<>(systems);
        if (layout.equals("three") && used.remove("pekko")) {
            System.out.println("(layout three is Troupe only: see the class comment; three-remote has both)");
        }
        System.out.printf(Locale.ROOT, "Sharded messaging, layout %s: %,d entities, %d senders x window %d, %,d messages per run, %d runs, %d processors, %s%n",
            layout, entities, senders, window, messages, runs, Runtime.getRuntime().availableProcessors(), System.getProperty("java.runtime.version"));
        final StringBuilder table = new StringBuilder("\n| mode | system | messages/s (median) | B/message, all threads (median) |\n|---|---|---|---|\n");
        for (String mode : modes) {
            final double[][] rates = new double[used.size()][runs];
            final double[][] bytes = new double[used.size()][runs];
            for (int run = 0; run < runs; run++) {
                for (int k = 0; k < used.size(); k++) {
                    final int s = run % 2 == 0 ? k : used.size() - 1 - k;
                    final double[] r = Forks.run(ShardedMessaging.class, "2g", List.of(used.get(s), mode, layout,
                        Integer.toString(entities), Integer.toString(senders), Integer.toString(window), Integer.toString(messages)));
                    rates[s][run] = r[0];
                    bytes[s][run] = r[1];
                    System.out.printf(Locale.ROOT, "  %-4s run %d %-6s %,14.0f messages/s %9.1f B/message%n", mode, run + 1, used.get(s), r[0], r[1]);
                }
            }
            for (int s = 0; s < used.size(); s++) {
                table.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %.1f |%n", mode, used.get(s), Forks.median(rates[s]), Forks.median(bytes[s])));
            }
        }
        System.out.print(table);
    }

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    /** The measured round's bytes per message, for the child's RESULT line. */
    static final double[] LAST_BYTES_PER_MESSAGE = new double[1];

    /** Runs the warm-up rounds and the measured one; returns messages per second (and keeps the bytes per message). */
    private static double rounds(int messages, RoundRunner runner) throws Exception {
        for (int i = 0; i < 2; i++) {
            runner.run(messages / 4);
        }
        final long b0 = THREADS.getTotalThreadAllocatedBytes();
        final long t0 = System.nanoTime();
        runner.run(messages);
        final long t1 = System.nanoTime();
        LAST_BYTES_PER_MESSAGE[0] = (double) (THREADS.getTotalThreadAllocatedBytes() - b0) / messages;
        return messages / ((t1 - t0) / 1e9);
    }

    @FunctionalInterface
    private interface RoundRunner {
        /** Sends {@code messages} in all and returns once every one is answered. */
        void run(int messages) throws Exception;
    }

    /** Each sender's share of fresh entities: the senders visit it with stride 7, so it must not be a multiple of 7. */
    static int startSlice(int total, int senders) {
        final int slice = Math.max(1, total / senders);
        return slice % 7 == 0 ? slice + 1 : slice;
    }

    private static void await(CountDownLatch done, String what) throws InterruptedException {
        if (!done.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException(what + " did not finish within 10 minutes");
        }
    }

    /** The asks of one run that failed: how many, and the first, for the error that reports them. */
    private static final class AskFailures {
        private final AtomicLong count = new AtomicLong();
        private final java.util.concurrent.atomic.AtomicReference<Throwable> first = new java.util.concurrent.atomic.AtomicReference<>();

        void add(Throwable failure) {
            count.incrementAndGet();
            first.compareAndSet(null, failure);
        }
    }

    /**
     * Runs the ask rounds of {@code clients}, one client per sender.
     *
     * @throws IllegalStateException if any ask failed (a lost message), naming the first failure
     */
    private static double askRounds(List<AskClient> clients, AskFailures failures, int messages, int window) throws Exception {
        final int senders = clients.size();
        final double rate = rounds(messages, total -> {
            final CountDownLatch done = new CountDownLatch(senders);
            for (AskClient c : clients) {
                c.start(total / senders, window, done);
            }
            await(done, "ask round");
        });
        if (failures.count.get() > 0) {
            final Throwable first = failures.first.get();
            throw new IllegalStateException(failures.count.get() + " asks failed, the first with " + first, first);
        }
        return rate;
    }

    /** Pipelined asks from one client: a new ask whenever one completes, {@code window} in flight. */
    private abstract static class AskClient {
        private final AtomicInteger issued = new AtomicInteger();
        private final AtomicInteger completed = new AtomicInteger();
        private final AskFailures failures;
        private int quota;
        private CountDownLatch done;
        private final int stride;
        private final AtomicInteger next;
        private final int entities;

        AskClient(int offset, int entities, AskFailures failures) {
            this.next = new AtomicInteger(offset);
            this.entities = entities;
            this.stride = 7;
            this.failures = failures;
        }

        void start(int quota, int window, CountDownLatch done) {
            this.quota = quota;
            this.done = done;
            issued.set(0);
            completed.set(0);
            for (int i = 0; i < Math.min(window, quota); i++) {
                issue();
            }
        }

        final void issue() {
            if (issued.getAndIncrement() >= quota) {
                return;
            }
            ask(Math.floorMod(next.getAndAdd(stride), entities));
        }

        final void completed(Throwable failure) {
            if (failure != null) {
                failures.add(failure);
            }
            if (completed.incrementAndGet() == quota) {
                done.countDown();
            } else {
                issue();
            }
        }

        abstract void ask(int entity);
    }

    /** Troupe: sharding over one or three in-memory nodes. */
    static final class TroupeSide {
        interface Cmd {
        }

        record Ping(dev.troupe.actor.ActorRef<Pong> replyTo) implements Cmd {
        }

        record Get(dev.troupe.actor.ActorRef<Long> replyTo) implements Cmd {
        }

        enum Pong { INSTANCE }

        record Go(int quota, CountDownLatch done) {
        }

        static final dev.troupe.cluster.sharding.EntityTypeKey<Cmd> KEY = dev.troupe.cluster.sharding.EntityTypeKey.create(Cmd.class, "Bench");

        static dev.troupe.actor.Behavior<Cmd> entity() {
            return dev.troupe.actor.Behaviors.setup(ctx -> {
                final long[] count = {0};
                return dev.troupe.actor.Behaviors.receiveMessage(m -> {
                    count[0]++;
                    if (m instanceof Ping p) {
                        p.replyTo().tell(Pong.INSTANCE);
                    } else if (m instanceof Get g) {
                        g.replyTo().tell(count[0]);
                    }
                    return dev.troupe.actor.Behaviors.same();
                });
            });
        }

        static dev.troupe.actor.Behavior<Object> sender(dev.troupe.cluster.sharding.EntityRef<Cmd>[] refs, int window, int offset) {
            return dev.troupe.actor.Behaviors.setup(ctx -> {
                final Ping ping = new Ping(ctx.self().narrow());
                final int[] st = new int[4]; // sent, answered, quota, next entity
                st[3] = offset;
                final CountDownLatch[] done = new CountDownLatch[1];
                return dev.troupe.actor.Behaviors.receiveMessage(m -> {
                    if (m == Pong.INSTANCE) {
                        st[1]++;
                        if (st[0] < st[2]) {
                            refs[st[3]].tell(ping);
                            st[3] = (st[3] + 7) % refs.length;
                            st[0]++;
                        } else if (st[1] == st[2]) {
                            done[0].countDown();
                        }
                    } else if (m instanceof Go g) {
                        st[0] = 0;
                        st[1] = 0;
                        st[2] = g.quota();
                        done[0] = g.done();
                        for (int i = 0; i < Math.min(window, g.quota()); i++) {
                            refs[st[3]].tell(ping);
                            st[3] = (st[3] + 7) % refs.length;
                            st[0]++;
                        }
                    }
                    return dev.troupe.actor.Behaviors.same();
                });
            });
        }

        static double run(String mode, String layout, int entities, int senders, int window, int messages) throws Exception {
            return runAll(new String[] {mode}, layout, entities, senders, window, messages)[0];
        }

        /** Runs the modes one after the other on one cluster (formed once): the rates, in order. */
        static double[] runAll(String[] modes, String layout, int entities, int senders, int window, int messages) throws Exception {
            final int n = layout.startsWith("three") ? 3 : 1;
            try (TroupeNodes nodes = new TroupeNodes(n, layout.equals("three-remote"))) {
                for (dev.troupe.actor.ActorSystem s : nodes.systems) {
                    dev.troupe.cluster.sharding.ClusterSharding.get(s).init(
                        dev.troupe.cluster.sharding.Entity.of(KEY, ctx -> entity()).withoutPassivation());
                }
                nodes.awaitHosted(KEY, dev.troupe.cluster.sharding.Entity.DEFAULT_NUMBER_OF_SHARDS);
                final double[] rates = new double[modes.length];
                for (int m = 0; m < modes.length; m++) {
                    rates[m] = run(modes[m], nodes, entities, senders, window, messages);
                }
                return rates;
            }
        }

        @SuppressWarnings("unchecked")
        private static double run(String mode, TroupeNodes nodes, int entities, int senders, int window, int messages) throws Exception {
            final int n = nodes.systems.size();
            final dev.troupe.cluster.sharding.EntityRef<Cmd>[][] refs = new dev.troupe.cluster.sharding.EntityRef[senders][entities];
            for (int i = 0; i < senders; i++) {
                final dev.troupe.cluster.sharding.ClusterSharding sharding = dev.troupe.cluster.sharding.ClusterSharding.get(nodes.systems.get(i % n));
                for (int e = 0; e < entities; e++) {
                    refs[i][e] = sharding.entityRefFor(KEY, "entity-" + e);
                }
            }
            if (mode.equals("start")) {
                final int[] round = {0};
                return rounds(messages, total -> {
                    final int r = round[0]++;
                    final int slice = startSlice(total, senders);
                    final CountDownLatch done = new CountDownLatch(senders);
                    for (int i = 0; i < senders; i++) {
                        final dev.troupe.cluster.sharding.ClusterSharding sharding = dev.troupe.cluster.sharding.ClusterSharding.get(nodes.systems.get(i % n));
                        final dev.troupe.cluster.sharding.EntityRef<Cmd>[] fresh = new dev.troupe.cluster.sharding.EntityRef[slice];
                        for (int e = 0; e < slice; e++) {
                            fresh[e] = sharding.entityRefFor(KEY, "fresh-" + r + "-" + i + "-" + e);
                        }
                        nodes.systems.get(i % n).spawn(sender(fresh, window, 0), "starter-" + r + "-" + i).tell(new Go(slice, done));
                    }
                    await(done, "start round");
                });
            }
            if (mode.equals("tell")) {
                final List<dev.troupe.actor.ActorRef<Object>> actors = new ArrayList<>();
                for (int i = 0; i < senders; i++) {
                    actors.add(nodes.systems.get(i % n).spawn(sender(refs[i], window, (i * entities) / senders), "sender-" + i));
                }
                return rounds(messages, total -> {
                    final CountDownLatch done = new CountDownLatch(senders);
                    for (dev.troupe.actor.ActorRef<Object> a : actors) {
                        a.tell(new Go(total / senders, done));
                    }
                    await(done, "tell round");
                });
            }
            final AskFailures failures = new AskFailures();
            final List<AskClient> clients = new ArrayList<>();
            for (int i = 0; i < senders; i++) {
                final dev.troupe.cluster.sharding.EntityRef<Cmd>[] mine = refs[i];
                clients.add(new AskClient((i * entities) / senders, entities, failures) {
                    @Override
                    void ask(int entity) {
                        mine[entity].<Long>ask(Get::new, ASK_TIMEOUT).whenComplete((v, t) -> completed(t));
                    }
                });
            }
            return askRounds(clients, failures, messages, window);
        }
    }

    /** Pekko Cluster Sharding typed on a one-node cluster. */
    static final class PekkoSide {
        interface Cmd {
        }

        record Ping(org.apache.pekko.actor.typed.ActorRef<Pong> replyTo) implements Cmd {
        }

        record Get(org.apache.pekko.actor.typed.ActorRef<Long> replyTo) implements Cmd {
        }

        enum Pong { INSTANCE }

        record Go(int quota, CountDownLatch done) {
        }

        static final org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey<Cmd> KEY =
            org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey.create(Cmd.class, "Bench");

        static org.apache.pekko.actor.typed.Behavior<Cmd> entity() {
            return org.apache.pekko.actor.typed.javadsl.Behaviors.setup(ctx -> {
                final long[] count = {0};
                return org.apache.pekko.actor.typed.javadsl.Behaviors.receiveMessage(m -> {
                    count[0]++;
                    if (m instanceof Ping p) {
                        p.replyTo().tell(Pong.INSTANCE);
                    } else if (m instanceof Get g) {
                        g.replyTo().tell(count[0]);
                    }
                    return org.apache.pekko.actor.typed.javadsl.Behaviors.same();
                });
            });
        }

        static org.apache.pekko.actor.typed.Behavior<Object> sender(
            org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef<Cmd>[] refs, int window, int offset) {
            return org.apache.pekko.actor.typed.javadsl.Behaviors.setup(ctx -> {
                final Ping ping = new Ping(ctx.getSelf().narrow());
                final int[] st = new int[4];
                st[3] = offset;
                final CountDownLatch[] done = new CountDownLatch[1];
                return org.apache.pekko.actor.typed.javadsl.Behaviors.receiveMessage(m -> {
                    if (m == Pong.INSTANCE) {
                        st[1]++;
                        if (st[0] < st[2]) {
                            refs[st[3]].tell(ping);
                            st[3] = (st[3] + 7) % refs.length;
                            st[0]++;
                        } else if (st[1] == st[2]) {
                            done[0].countDown();
                        }
                    } else if (m instanceof Go g) {
                        st[0] = 0;
                        st[1] = 0;
                        st[2] = g.quota();
                        done[0] = g.done();
                        for (int i = 0; i < Math.min(window, g.quota()); i++) {
                            refs[st[3]].tell(ping);
                            st[3] = (st[3] + 7) % refs.length;
                            st[0]++;
                        }
                    }
                    return org.apache.pekko.actor.typed.javadsl.Behaviors.same();
                });
            });
        }

        static double run(String mode, String layout, int entities, int senders, int window, int messages) throws Exception {
            return runAll(new String[] {mode}, layout, entities, senders, window, messages)[0];
        }

        /** Runs the modes one after the other on one cluster (formed once): the rates, in order. */
        static double[] runAll(String[] modes, String layout, int entities, int senders, int window, int messages) throws Exception {
            final int n = layout.equals("three-remote") ? 3 : 1;
            final List<PekkoNode> nodes = new ArrayList<>();
            try {
                nodes.add(new PekkoNode());
                for (int i = 1; i < n; i++) {
                    nodes.add(new PekkoNode(org.apache.pekko.cluster.typed.Cluster.get(nodes.get(0).system).selfMember().address()));
                }
                for (PekkoNode node : nodes) {
                    node.awaitUp(n);
                    org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding.get(node.system)
                        .init(org.apache.pekko.cluster.sharding.typed.javadsl.Entity.of(KEY, ctx -> entity()));
                }
                nodes.get(0).awaitRegions(KEY, n);
                final double[] rates = new double[modes.length];
                for (int m = 0; m < modes.length; m++) {
                    rates[m] = run(modes[m], nodes, entities, senders, window, messages);
                }
                return rates;
            } finally {
                for (PekkoNode node : nodes) {
                    node.terminate();
                }
                for (PekkoNode node : nodes) {
                    node.awaitTerminated();
                }
            }
        }

        @SuppressWarnings("unchecked")
        private static double run(String mode, List<PekkoNode> nodes, int entities, int senders, int window, int messages) throws Exception {
            final int n = nodes.size();
            final org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef<Cmd>[][] refs =
                new org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef[senders][entities];
            for (int i = 0; i < senders; i++) {
                final org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding sharding =
                    org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding.get(nodes.get(i % n).system);
                for (int e = 0; e < entities; e++) {
                    refs[i][e] = sharding.entityRefFor(KEY, "entity-" + e);
                }
            }
            if (mode.equals("start")) {
                final int[] round = {0};
                return rounds(messages, total -> {
                    final int r = round[0]++;
                    final int slice = startSlice(total, senders);
                    final CountDownLatch done = new CountDownLatch(senders);
                    for (int i = 0; i < senders; i++) {
                        final PekkoNode node = nodes.get(i % n);
                        final org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding sharding =
                            org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding.get(node.system);
                        final org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef<Cmd>[] fresh =
                            new org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef[slice];
                        for (int e = 0; e < slice; e++) {
                            fresh[e] = sharding.entityRefFor(KEY, "fresh-" + r + "-" + i + "-" + e);
                        }
                        node.system.systemActorOf(sender(fresh, window, 0), "starter-" + r + "-" + i,
                            org.apache.pekko.actor.typed.Props.empty()).tell(new Go(slice, done));
                    }
                    await(done, "start round");
                });
            }
            if (mode.equals("tell")) {
                final List<org.apache.pekko.actor.typed.ActorRef<Object>> actors = new ArrayList<>();
                for (int i = 0; i < senders; i++) {
                    actors.add(nodes.get(i % n).system.systemActorOf(sender(refs[i], window, (i * entities) / senders), "sender-" + i,
                        org.apache.pekko.actor.typed.Props.empty()));
                }
                return rounds(messages, total -> {
                    final CountDownLatch done = new CountDownLatch(senders);
                    for (org.apache.pekko.actor.typed.ActorRef<Object> a : actors) {
                        a.tell(new Go(total / senders, done));
                    }
                    await(done, "tell round");
                });
            }
            final AskFailures failures = new AskFailures();
            final List<AskClient> clients = new ArrayList<>();
            for (int i = 0; i < senders; i++) {
                final org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef<Cmd>[] mine = refs[i];
                clients.add(new AskClient((i * entities) / senders, entities, failures) {
                    @Override
                    void ask(int entity) {
                        mine[entity].<Long>ask(Get::new, ASK_TIMEOUT).whenComplete((v, t) -> completed(t));
                    }
                });
            }
            return askRounds(clients, failures, messages, window);
        }
    }
}
