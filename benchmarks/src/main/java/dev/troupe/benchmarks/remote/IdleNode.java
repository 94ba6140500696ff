package dev.troupe.benchmarks.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * CPU an idle node costs with the transport on: this JVM runs one node with default settings
 * (default dispatcher, one I/O thread, heartbeats every second), connected both ways to a second
 * node in a child JVM, after one message each way; then nothing happens for {@code --seconds},
 * and the CPU time both processes used meanwhile is read from {@code /proc/<pid>/stat} (user plus
 * system time) and printed as a share of one core.
 *
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED \
 *   -cp benchmarks/target/benchmarks.jar dev.troupe.benchmarks.remote.IdleNode [--seconds 60]
 * </pre>
 */
public final class IdleNode {

    private static final String SECRET = "idle-node-benchmark-secret-0123456";

    private IdleNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--peer")) {
            peer(Integer.parseInt(args[1]));
            return;
        }
        int seconds = 60;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--seconds")) {
                seconds = Integer.parseInt(args[i + 1]);
            } else {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final ActorSystem system = ActorSystem.create("idle");
        final RemoteTransport remote = RemoteTransport.start(system, settings(0));
        final CountDownLatch greeted = new CountDownLatch(1);
        remote.publish(system.spawn(Behaviors.<String>receiveMessage(m -> {
            greeted.countDown();
            return Behaviors.same();
        }), "inbox"), String.class);

        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(IdleNode.class.getName());
        command.add("--peer");
        command.add(Integer.toString(remote.address().port()));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        final int peerPort = Integer.parseInt(waitFor(out, "PORT ").substring(5));
        final ActorRef<String> peerInbox = remote.actorRef("troupe://peer@127.0.0.1:" + peerPort + "/user/inbox", String.class);
        peerInbox.tell("hello from idle");
        if (!greeted.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the peer never said hello");
        }
        waitFor(out, "GREETED");
        final Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) {
                    // keep the child's output pipe empty
                }
            } catch (IOException e) {
                // the child ended
            }
        });
        drain.setDaemon(true);
        drain.start();
        Thread.sleep(5_000); // let start-up work (JIT, class loading) end before measuring idleness

        final long pid = ProcessHandle.current().pid();
        final long childPid = child.pid();
        final long self0 = cpuTicks(pid);
        final long child0 = cpuTicks(childPid);
        final long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds)); // the idle period that is measured
        final double elapsed = (System.nanoTime() - t0) / 1e9;
        final long self1 = cpuTicks(pid);
        final long child1 = cpuTicks(childPid);
        final double tick = 100.0; // USER_HZ on Linux
        final PeerMetrics peer = remote.metrics().peers().get(0);
        System.out.printf(Locale.ROOT, "idle for %.1f s with the transport on (state %s, phi %.2f, load average %s)%n", elapsed,
            peer.state().tag(), peer.phi(), Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.printf(Locale.ROOT, "this node: %.2f%% of one core (%.2f s CPU)%n", 100 * (self1 - self0) / tick / elapsed,
            (self1 - self0) / tick);
        System.out.printf(Locale.ROOT, "its peer (child JVM): %.2f%% of one core (%.2f s CPU)%n", 100 * (child1 - child0) / tick / elapsed,
            (child1 - child0) / tick);
        child.destroy();
        child.waitFor(10, TimeUnit.SECONDS);
        remote.shutdown(Duration.ofSeconds(1));
        system.terminate().toCompletableFuture().join();
    }

    private static void peer(int idlePort) throws Exception {
        final ActorSystem system = ActorSystem.create("peer");
        final RemoteTransport remote = RemoteTransport.start(system, settings(0));
        final CountDownLatch greeted = new CountDownLatch(1);
        remote.publish(system.spawn(Behaviors.<String>receiveMessage(m -> {
            greeted.countDown();
            return Behaviors.same();
        }), "inbox"), String.class);
        System.out.println("PORT " + remote.address().port());
        remote.actorRef("troupe://idle@127.0.0.1:" + idlePort + "/user/inbox", String.class).tell("hello from peer");
        greeted.await();
        System.out.println("GREETED");
        Thread.sleep(Long.MAX_VALUE); // idle until the parent ends this process
    }

    private static RemoteSettings settings(int port) {
        return RemoteSettings.builder().bindHost("127.0.0.1").bindPort(port).secret(SECRET).build();
    }

    private static String waitFor(BufferedReader out, String prefix) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("the peer ended before printing " + prefix);
    }

    /** @return user plus system time of a process, in clock ticks, from /proc/<pid>/stat */
    static long cpuTicks(long pid) throws IOException {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }
}
