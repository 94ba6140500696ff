package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Windowed remote traffic allocates nothing on any thread, the transport's I/O threads
 * included, beyond the messages it deserializes: N pingers (1, 4, 16) each keep 64 pings in
 * flight to their own echo on another node, as a request/response service does. Bytes are
 * counted with {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes} on every thread
 * and printed per thread group. The actors reuse one Ping and one Pong each, so what a round trip
 * needs is the two messages the receiving I/O threads deserialize; their size is measured here,
 * not assumed. Netty's leak detection runs as in production (the default sampling level, not the
 * build's paranoid one), since its samples are allocations on the I/O threads too.
 */
class WindowedAllocationTest {

    private static final int WINDOW = 64;
    /** Bytes per message allowed beyond the deserialized messages, summed over all threads. */
    private static final double MARGIN_PER_MESSAGE = 1.0;

    private final RemoteTestKit kit = new RemoteTestKit();
    private ResourceLeakDetector.Level leakLevel;

    @BeforeEach
    void productionLeakDetection() {
        leakLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
    }

    @AfterEach
    void tearDown() {
        kit.close();
        ResourceLeakDetector.setLevel(leakLevel);
    }

    /** Keeps a window of Pings in flight; counts Pongs down from {@code remaining[0]}. */
    private static Behavior<Ping.Pong> pinger(ActorRef<Ping> echo, long[] remaining, CountDownLatch[] done) {
        return Behaviors.setup(ctx -> {
            final Ping ping = new Ping(1, ctx.self());
            return Behaviors.receiveMessage(pong -> {
                final long left = --remaining[0];
                if (left == 0) {
                    done[0].countDown();
                } else if (left >= WINDOW) {
                    echo.tell(ping);
                }
                return Behaviors.same();
            });
        });
    }

    private static Behavior<Ping> reusingEcho() {
        final Ping.Pong pong = new Ping.Pong(1);
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(pong);
            return Behaviors.same();
        });
    }

    @ParameterizedTest(name = "{0} clients")
    @ValueSource(ints = {1, 4, 16})
    void windowedRoundTripsAllocateOnlyTheDeserializedMessages(int clients) throws InterruptedException {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final List<ActorRef<Ping>> echoes = new ArrayList<>();
        final List<ActorRef<Ping.Pong>> pingers = new ArrayList<>();
        final long[][] remaining = new long[clients][1];
        final CountDownLatch[][] done = new CountDownLatch[clients][1];
        for (int i = 0; i < clients; i++) {
            b.publish(b.system().spawn(reusingEcho(), "echo-" + i), Ping.class);
            final ActorRef<Ping> echo = a.actorRef(b.address() + "user/echo-" + i, Ping.class);
            echoes.add(echo);
            pingers.add(a.system().spawn(pinger(echo, remaining[i], done[i]), "pinger-" + i));
        }
        // 100,000 messages per run (50,000 round trips): one client is bound by the hand-offs of each
        // window, which on a machine busy with other work wait for a CPU slice apiece (a run of
        // 400,000 messages took 9 s there); a one-off allocation of a few KB stays far inside the margin.
        final int perClient = 50_000 / clients;
        for (int w = 0; w < 4; w++) {
            run(pingers, echoes, remaining, done, perClient); // warm-up: JIT, pools, mailboxes, compression tables
        }

        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long[] ids = threads.getAllThreadIds();
        final String[] names = names(threads, ids);
        final long[] before = threads.getThreadAllocatedBytes(ids);
        run(pingers, echoes, remaining, done, perClient);
        final long[] after = threads.getThreadAllocatedBytes(ids);

        final long messages = 2L * clients * perClient;
        final Map<String, Long> byGroup = new TreeMap<>();
        long total = 0;
        for (int i = 0; i < ids.length; i++) {
            if (before[i] >= 0 && after[i] >= 0 && names[i] != null) {
                final long bytes = after[i] - before[i];
                total += bytes;
                byGroup.merge(group(names[i]), bytes, Long::sum);
            }
        }
        // every message is deserialized once on the receiving node: a Ping or a Pong per message
        final double messageBytes = (sizeOf(true) + sizeOf(false)) / 2.0;
        final double beyond = (total - messages * messageBytes) / messages;
        System.out.printf("%d clients, window %d: %d messages, %.2f B/msg on all threads, deserialized messages %.1f B/msg,"
            + " %.3f B/msg beyond them%n", clients, WINDOW, messages, total / (double) messages, messageBytes, beyond);
        byGroup.forEach((g, bytes) -> {
            if (bytes > 0) {
                System.out.printf("    %-28s %10.3f B/msg%n", g, bytes / (double) messages);
            }
        });
        assertThat(beyond).as("bytes per message beyond the deserialized messages, all threads, %d clients", clients)
            .isLessThanOrEqualTo(MARGIN_PER_MESSAGE);
    }

    private static void run(List<ActorRef<Ping.Pong>> pingers, List<ActorRef<Ping>> echoes, long[][] remaining,
                            CountDownLatch[][] done, int perClient) throws InterruptedException {
        for (int i = 0; i < pingers.size(); i++) {
            done[i][0] = new CountDownLatch(1);
            remaining[i][0] = perClient;
        }
        // each pinger touches its remaining[] only in its own turns, which start after these writes (happens-before via tell)
        for (int i = 0; i < pingers.size(); i++) {
            final Ping start = new Ping(1, pingers.get(i));
            for (int k = 0; k < WINDOW; k++) {
                echoes.get(i).tell(start);
            }
        }
        for (int i = 0; i < pingers.size(); i++) {
            assertThat(done[i][0].await(120, TimeUnit.SECONDS)).as("pinger %d finished", i).isTrue();
        }
    }

    /** @return the bytes one deserialized Ping (or Pong) takes on this JVM, measured */
    private static long sizeOf(boolean ping) {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final Object[] keep = new Object[10_000];
        final long id = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < keep.length; i++) {
            keep[i] = ping ? new Ping(i, null) : new Ping.Pong(i);
        }
        final long after = threads.getThreadAllocatedBytes(id);
        assertThat(keep[keep.length - 1]).isNotNull();
        return Math.round((after - before) / (double) keep.length);
    }

    private static String[] names(java.lang.management.ThreadMXBean threads, long[] ids) {
        final ThreadInfo[] infos = threads.getThreadInfo(ids);
        final String[] names = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
            names[i] = infos[i] == null ? null : infos[i].getThreadName();
        }
        return names;
    }

    /** {@code troupe-alpha-remote-2-1} becomes {@code troupe-alpha-remote}. */
    private static String group(String name) {
        return name.replaceAll("(-\\d+)+$", "");
    }
}
