package dev.troupe.benchmarks.memory;

import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory per idle actor and spawn rate, Troupe beside Apache Pekko typed, in one sitting.
 *
 * <p>Each measurement runs in a fresh JVM (same flags for both systems, alternating which goes
 * first): a spawner actor spawns {@code actors} children through the public API
 * ({@code ctx.spawn(behavior, "e" + i)}, the way a shard spawns its entities, or
 * {@code ctx.spawnAnonymous} with {@code --anonymous}); every child runs a shared, stateless
 * behavior whose setup counts the start. The spawn rate is actors divided by the time from the
 * first spawn call until every child has run its setup. The retained heap is the used heap after
 * {@code System.gc()} with all actors alive, minus the same reading taken before spawning (the
 * array that keeps the refs is allocated before that first reading, so it is not counted),
 * divided by the number of actors.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.memory.IdleActors \
 *      [--actors 1000000] [--runs 3] [--systems troupe,pekko] [--anonymous] [--told] [--top-level] [--histogram 20]
 * </pre>
 *
 * <p>{@code --told} tells every child one message once all have started and measures after each
 * has processed it and a few idle seconds more: an entity that was used and then left alone, the
 * shape that decides how many entities a node holds. {@code --top-level} spawns Troupe's actors
 * through {@code ActorSystem.spawn} from the main thread.
 *
 * <p>{@code --histogram N} prints, for each run, the N classes with the most live bytes while
 * the actors are alive (the JVM's own class histogram after a full collection), with instances
 * and bytes per actor: where an idle actor's bytes go.
 */
public final class IdleActors {

    private static final String ADD_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    private IdleActors() {
    }

    /**
     * @param args see the class comment; {@code --child SYSTEM ACTORS NAMED} runs one measurement
     * @throws Exception if a child JVM fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            final String system = args[1];
            final int actors = Integer.parseInt(args[2]);
            final boolean named = Boolean.parseBoolean(args[3]);
            histogramLines = Integer.parseInt(args[4]);
            told = Boolean.parseBoolean(args[5]);
            topLevel = Boolean.parseBoolean(args[6]);
            final Result r = system.equals("troupe") ? TroupeSide.measure(actors, named) : PekkoSide.measure(actors, named);
            System.out.println("RESULT " + r.bytesPerActor + " " + r.spawnsPerSecond);
            System.exit(0);
        }
        int actors = 1_000_000;
        int runs = 3;
        boolean named = true;
        boolean toldOne = false;
        boolean top = false;
        int histogram = 0;
        List<String> systems = List.of("troupe", "pekko");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--actors" -> actors = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--systems" -> systems = List.of(args[++i].split(","));
                case "--anonymous" -> named = false;
                case "--told" -> toldOne = true;
                case "--top-level" -> top = true;
                case "--histogram" -> histogram = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.printf(Locale.ROOT, "Idle actors: %,d %s children of one spawner%s, %d runs per system, %d processors, %s%n",
            actors, named ? "named" : "anonymous", toldOne ? ", each told one message" : "", runs,
            Runtime.getRuntime().availableProcessors(), System.getProperty("java.runtime.version"));
        final double[][] bytes = new double[systems.size()][runs];
        final double[][] rates = new double[systems.size()][runs];
        for (int run = 0; run < runs; run++) {
            for (int k = 0; k < systems.size(); k++) {
                final int s = run % 2 == 0 ? k : systems.size() - 1 - k;
                final double[] r = child(systems.get(s), actors, named, histogram, toldOne, top);
                bytes[s][run] = r[0];
                rates[s][run] = r[1];
                System.out.printf(Locale.ROOT, "  run %d %-6s %7.1f B/actor  %,12.0f spawns/s%n", run + 1, systems.get(s), r[0], r[1]);
            }
        }
        System.out.printf(Locale.ROOT, "%n| system | retained heap per idle actor (median) | spawns/s (median) |%n|---|---|---|%n");
        for (int s = 0; s < systems.size(); s++) {
            System.out.printf(Locale.ROOT, "| %s | %.0f B | %,.0f |%n", systems.get(s), median(bytes[s]), median(rates[s]));
        }
    }

    private static double median(double[] v) {
        final double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static double[] child(String system, int actors, boolean named, int histogram, boolean toldOne, boolean top)
            throws IOException, InterruptedException {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final List<String> cmd = new ArrayList<>(List.of(java, ADD_OPENS, "-Xms4g", "-Xmx4g", "-XX:+UseG1GC",
            "-cp", System.getProperty("java.class.path"), IdleActors.class.getName(), "--child", system,
            Integer.toString(actors), Boolean.toString(named), Integer.toString(histogram), Boolean.toString(toldOne),
            Boolean.toString(top)));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        double[] result = null;
        final StringBuilder output = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("RESULT ")) {
                    final String[] f = line.split(" ");
                    result = new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2])};
                } else if (line.startsWith("HISTO ")) {
                    System.out.println(line.substring(6));
                } else {
                    output.append(line).append('\n');
                }
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0 || result == null) {
            throw new IllegalStateException(system + " child failed:\n" + output);
        }
        return result;
    }

    record Result(double bytesPerActor, double spawnsPerSecond) {
    }

    /** How many classes of the live-heap histogram a child prints; 0 for none. */
    static int histogramLines;

    /**
     * Prints the classes with the most live bytes, from the JVM's {@code GC.class_histogram}
     * diagnostic command (which runs a full collection first), with bytes per actor.
     */
    static void printHistogram(String system, int actors) throws Exception {
        if (histogramLines <= 0) {
            return;
        }
        final String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
            new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
            new Object[] {new String[0]}, new String[] {String[].class.getName()});
        System.out.printf(Locale.ROOT, "HISTO   %s, %,d live actors: %12s %12s %10s %8s  %s%n", system, actors,
            "instances", "bytes", "inst/actor", "B/actor", "class");
        int shown = 0;
        for (String line : text.split("\n")) {
            final String[] f = line.trim().split("\\s+");
            // "  1:   1000000   48000000  dev.troupe.Foo (module)" -> rank, instances, bytes, class
            if (f.length < 4 || !f[0].endsWith(":") || shown++ >= histogramLines) {
                continue;
            }
            final long instances = Long.parseLong(f[1]);
            final long bytes = Long.parseLong(f[2]);
            System.out.printf(Locale.ROOT, "HISTO   %12d %12d %10.2f %8.1f  %s%n", instances, bytes,
                (double) instances / actors, (double) bytes / actors, f[3]);
        }
    }

    /** Counts children whose setup has run; shared by both sides (one per JVM). */
    static final AtomicLong STARTED = new AtomicLong();
    /** Counts the messages the children processed ({@code --told}). */
    static final AtomicLong PROCESSED = new AtomicLong();
    /** The one message every child is told with {@code --told}. */
    static final Object TICK = new Object();
    /** Whether each child is told one message after it started, and the reading waits until it has been processed and a while after. */
    static boolean told;
    /**
     * Whether Troupe's actors are spawned from outside through {@code ActorSystem.spawn} (top-level,
     * under {@code /user}) instead of by a spawner actor; Pekko's are spawned by its guardian either way.
     */
    static boolean topLevel;

    /**
     * With {@code --told}: tells every child {@link #TICK}, waits until each has processed it, then
     * waits a further few seconds, as an entity that was used once and then left alone.
     */
    static void tellEachOnce(Object[] refs, java.util.function.BiConsumer<Object, Object> tell) throws InterruptedException {
        if (!told) {
            return;
        }
        PROCESSED.set(0);
        for (Object ref : refs) {
            tell.accept(ref, TICK);
        }
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (PROCESSED.get() < refs.length) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + PROCESSED.get() + " of " + refs.length + " messages processed within 5 minutes");
            }
            Thread.sleep(1);
        }
        // Idle for longer than any give-back interval of either runtime.
        Thread.sleep(3_000);
    }

    static long usedHeapAfterGc() {
        long used = Long.MAX_VALUE;
        // Several collections: the last reading is taken once nothing more is freed.
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
                throw new IllegalStateException("only " + STARTED.get() + " of " + n + " actors started within 5 minutes");
            }
            Thread.onSpinWait();
            Thread.sleep(0, 100_000);
        }
    }

    static String[] names(int actors, boolean named) {
        if (!named) {
            return null;
        }
        final String[] names = new String[actors];
        for (int i = 0; i < actors; i++) {
            names[i] = "e" + i;
        }
        return names;
    }

    /** Troupe: a spawner actor spawns the children through {@code ActorContext}. */
    static final class TroupeSide {
        private static final dev.troupe.actor.Behavior<Object> IDLE = dev.troupe.actor.Behaviors.receiveMessage(m -> {
            PROCESSED.incrementAndGet();
            return dev.troupe.actor.Behaviors.same();
        });
        private static final dev.troupe.actor.Behavior<Object> CHILD = dev.troupe.actor.Behaviors.setup(ctx -> {
            STARTED.incrementAndGet();
            return IDLE;
        });

        record Spawn(int count, String[] names, Object[] refs, CountDownLatch spawned) {
        }

        @SuppressWarnings("unchecked")
        static Result measure(int actors, boolean named) throws Exception {
            final dev.troupe.actor.ActorSystem system = dev.troupe.actor.ActorSystem.create("idle");
            final dev.troupe.actor.ActorRef<Spawn> spawner = system.spawn(dev.troupe.actor.Behaviors.receive((ctx, m) -> {
                for (int i = 0; i < m.count(); i++) {
                    m.refs()[i] = m.names() == null ? ctx.spawnAnonymous(CHILD) : ctx.spawn(CHILD, m.names()[i]);
                }
                m.spawned().countDown();
                return dev.troupe.actor.Behaviors.same();
            }), "spawner");
            warmUp(spawner, system);
            final String[] names = names(actors, named);
            final Object[] refs = new Object[actors];
            final long before = usedHeapAfterGc();
            STARTED.set(0);
            final CountDownLatch spawned = new CountDownLatch(1);
            final long t0 = System.nanoTime();
            if (topLevel) {
                for (int i = 0; i < actors; i++) {
                    refs[i] = names == null ? system.spawnAnonymous(CHILD) : system.spawn(CHILD, names[i]);
                }
            } else {
                spawner.tell(new Spawn(actors, names, refs, spawned));
                spawned.await();
            }
            awaitStarted(actors);
            final long t1 = System.nanoTime();
            tellEachOnce(refs, (ref, m) -> ((dev.troupe.actor.ActorRef<Object>) ref).tell(m));
            final long after = usedHeapAfterGc();
            final Result r = new Result((double) (after - before) / actors, actors / ((t1 - t0) / 1e9));
            printHistogram("troupe", actors);
            if (refs[actors - 1] == null) {
                throw new IllegalStateException("refs not kept");
            }
            system.terminate().toCompletableFuture().get(2, TimeUnit.MINUTES);
            return r;
        }

        private static void warmUp(dev.troupe.actor.ActorRef<Spawn> spawner, dev.troupe.actor.ActorSystem system) throws Exception {
            // The first spawns load and compile the runtime's classes; they are not measured. The
            // warm-up actors stay alive (stopping them is not what is measured) and are in the baseline.
            final int n = 20_000;
            STARTED.set(0);
            final CountDownLatch done = new CountDownLatch(1);
            spawner.tell(new Spawn(n, null, new Object[n], done));
            done.await();
            awaitStarted(n);
        }
    }

    /** Pekko typed: the guardian spawns the children through its {@code ActorContext}. */
    static final class PekkoSide {
        private static final org.apache.pekko.actor.typed.Behavior<Object> IDLE =
            org.apache.pekko.actor.typed.javadsl.Behaviors.receiveMessage(m -> {
                PROCESSED.incrementAndGet();
                return org.apache.pekko.actor.typed.javadsl.Behaviors.same();
            });
        private static final org.apache.pekko.actor.typed.Behavior<Object> CHILD = org.apache.pekko.actor.typed.javadsl.Behaviors.setup(ctx -> {
            STARTED.incrementAndGet();
            return IDLE;
        });

        record Spawn(int count, String[] names, Object[] refs, CountDownLatch spawned) {
        }

        @SuppressWarnings("unchecked")
        static Result measure(int actors, boolean named) throws Exception {
            final org.apache.pekko.actor.typed.ActorSystem<Spawn> system = org.apache.pekko.actor.typed.ActorSystem.create(
                org.apache.pekko.actor.typed.javadsl.Behaviors.receive((ctx, m) -> {
                    for (int i = 0; i < m.count(); i++) {
                        m.refs()[i] = m.names() == null ? ctx.spawnAnonymous(CHILD) : ctx.spawn(CHILD, m.names()[i]);
                    }
                    m.spawned().countDown();
                    return org.apache.pekko.actor.typed.javadsl.Behaviors.same();
                }), "idle", ConfigFactory.load());
            final int n = 20_000;
            STARTED.set(0);
            final CountDownLatch warm = new CountDownLatch(1);
            system.tell(new Spawn(n, null, new Object[n], warm));
            warm.await();
            awaitStarted(n);
            final String[] names = names(actors, named);
            final Object[] refs = new Object[actors];
            final long before = usedHeapAfterGc();
            STARTED.set(0);
            final CountDownLatch spawned = new CountDownLatch(1);
            final long t0 = System.nanoTime();
            system.tell(new Spawn(actors, names, refs, spawned));
            spawned.await();
            awaitStarted(actors);
            final long t1 = System.nanoTime();
            tellEachOnce(refs, (ref, m) -> ((org.apache.pekko.actor.typed.ActorRef<Object>) ref).tell(m));
            final long after = usedHeapAfterGc();
            final Result r = new Result((double) (after - before) / actors, actors / ((t1 - t0) / 1e9));
            printHistogram("pekko", actors);
            if (refs[actors - 1] == null) {
                throw new IllegalStateException("refs not kept");
            }
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(2, TimeUnit.MINUTES);
            return r;
        }
    }
}
