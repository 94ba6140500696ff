package dev.troupe.benchmarks.sharding;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory per idle sharded entity and entity start rate, Troupe beside Apache Pekko Cluster
 * Sharding typed 1.7.0, on a one-node cluster, each measurement in a fresh JVM (same flags,
 * alternating which system goes first).
 *
 * <p>One thread starts {@code entities} entities by telling each one message through an entity
 * ref ({@code sharding.entityRefFor(key, id).tell(touch)}, ids made before the first reading);
 * each entity's setup counts its start and it then sits idle (automatic passivation off on both
 * sides). The start rate is entities divided by the time from the first tell until every entity
 * has run its setup. The retained heap is the used heap after {@code System.gc()} with every
 * entity alive, minus the same reading before (after a warm-up of 20,000 other entities that
 * stay alive), divided by the number of entities: the entity actor, its mailbox and everything
 * the sharding layer keeps per entity.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.sharding.IdleEntities \
 *      [--entities 200000] [--runs 3] [--systems troupe,pekko]
 * </pre>
 */
public final class IdleEntities {

    /** Entities whose setup has run; one per JVM. */
    static final AtomicLong STARTED = new AtomicLong();
    private static final int WARMUP = 20_000;

    private IdleEntities() {
    }

    /**
     * @param args see the class comment; {@code --child SYSTEM ENTITIES} runs one measurement
     * @throws Exception if a measurement fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            final int entities = Integer.parseInt(args[2]);
            final double[] r = args[1].equals("troupe") ? TroupeSide.measure(entities) : PekkoSide.measure(entities);
            System.out.println("RESULT " + r[0] + " " + r[1]);
            System.exit(0);
        }
        int entities = 200_000;
        int runs = 3;
        List<String> systems = List.of("troupe", "pekko");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--entities" -> entities = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--systems" -> systems = List.of(args[++i].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.printf(Locale.ROOT, "Idle sharded entities: %,d on one node, %d runs per system, %d processors, %s%n",
            entities, runs, Runtime.getRuntime().availableProcessors(), System.getProperty("java.runtime.version"));
        final double[][] bytes = new double[systems.size()][runs];
        final double[][] rates = new double[systems.size()][runs];
        for (int run = 0; run < runs; run++) {
            for (int k = 0; k < systems.size(); k++) {
                final int s = run % 2 == 0 ? k : systems.size() - 1 - k;
                final double[] r = Forks.run(IdleEntities.class, "4g", List.of(systems.get(s), Integer.toString(entities)));
                bytes[s][run] = r[0];
                rates[s][run] = r[1];
                System.out.printf(Locale.ROOT, "  run %d %-6s %7.1f B/entity  %,12.0f entity starts/s%n", run + 1, systems.get(s), r[0], r[1]);
            }
        }
        System.out.printf(Locale.ROOT, "%n| system | retained heap per idle entity (median) | entity starts/s (median) |%n|---|---|---|%n");
        for (int s = 0; s < systems.size(); s++) {
            System.out.printf(Locale.ROOT, "| %s | %.0f B | %,.0f |%n", systems.get(s), Forks.median(bytes[s]), Forks.median(rates[s]));
        }
    }

    static long usedHeapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    static void awaitStarted(long n) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (STARTED.get() < n) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + STARTED.get() + " of " + n + " entities started within 5 minutes");
            }
            Thread.sleep(0, 100_000);
        }
    }

    static String[] ids(String prefix, int n) {
        final String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = prefix + i;
        }
        return ids;
    }

    /** Troupe: a one-node cluster over the in-memory network. */
    static final class TroupeSide {
        enum Touch { INSTANCE }

        static final dev.troupe.cluster.sharding.EntityTypeKey<Touch> KEY = dev.troupe.cluster.sharding.EntityTypeKey.create(Touch.class, "Idle");
        private static final dev.troupe.actor.Behavior<Touch> IDLE = dev.troupe.actor.Behaviors.receiveMessage(m -> dev.troupe.actor.Behaviors.same());
        private static final dev.troupe.actor.Behavior<Touch> ENTITY = dev.troupe.actor.Behaviors.setup(ctx -> {
            STARTED.incrementAndGet();
            return IDLE;
        });

        static double[] measure(int entities) throws Exception {
            try (TroupeNodes nodes = new TroupeNodes(1)) {
                final dev.troupe.cluster.sharding.ClusterSharding sharding = dev.troupe.cluster.sharding.ClusterSharding.get(nodes.systems.get(0));
                sharding.init(dev.troupe.cluster.sharding.Entity.of(KEY, ctx -> ENTITY).withoutPassivation());
                nodes.awaitHosted(KEY, dev.troupe.cluster.sharding.Entity.DEFAULT_NUMBER_OF_SHARDS);
                final String[] warm = ids("w", WARMUP);
                STARTED.set(0);
                for (String id : warm) {
                    sharding.entityRefFor(KEY, id).tell(Touch.INSTANCE);
                }
                awaitStarted(WARMUP);
                final String[] ids = ids("e", entities);
                final long before = usedHeapAfterGc();
                STARTED.set(0);
                final long t0 = System.nanoTime();
                for (String id : ids) {
                    sharding.entityRefFor(KEY, id).tell(Touch.INSTANCE);
                }
                awaitStarted(entities);
                final long t1 = System.nanoTime();
                final long after = usedHeapAfterGc();
                if (sharding.metrics(KEY).activeEntities() != WARMUP + entities) {
                    throw new IllegalStateException("expected " + (WARMUP + entities) + " entities, the region has " + sharding.metrics(KEY).activeEntities());
                }
                return new double[] {(double) (after - before) / entities, entities / ((t1 - t0) / 1e9), STARTED.get()};
            }
        }
    }

    /** Pekko Cluster Sharding typed on a one-node cluster. */
    static final class PekkoSide {
        enum Touch { INSTANCE }

        static final org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey<Touch> KEY =
            org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey.create(Touch.class, "Idle");
        private static final org.apache.pekko.actor.typed.Behavior<Touch> IDLE =
            org.apache.pekko.actor.typed.javadsl.Behaviors.receiveMessage(m -> org.apache.pekko.actor.typed.javadsl.Behaviors.same());
        private static final org.apache.pekko.actor.typed.Behavior<Touch> ENTITY = org.apache.pekko.actor.typed.javadsl.Behaviors.setup(ctx -> {
            STARTED.incrementAndGet();
            return IDLE;
        });

        static double[] measure(int entities) throws Exception {
            try (PekkoNode node = new PekkoNode()) {
                final org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding sharding =
                    org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding.get(node.system);
                sharding.init(org.apache.pekko.cluster.sharding.typed.javadsl.Entity.of(KEY, ctx -> ENTITY));
                final String[] warm = ids("w", WARMUP);
                STARTED.set(0);
                for (String id : warm) {
                    sharding.entityRefFor(KEY, id).tell(Touch.INSTANCE);
                }
                awaitStarted(WARMUP);
                final String[] ids = ids("e", entities);
                final long before = usedHeapAfterGc();
                STARTED.set(0);
                final long t0 = System.nanoTime();
                for (String id : ids) {
                    sharding.entityRefFor(KEY, id).tell(Touch.INSTANCE);
                }
                awaitStarted(entities);
                final long t1 = System.nanoTime();
                final long after = usedHeapAfterGc();
                return new double[] {(double) (after - before) / entities, entities / ((t1 - t0) / 1e9), STARTED.get()};
            }
        }
    }
}
