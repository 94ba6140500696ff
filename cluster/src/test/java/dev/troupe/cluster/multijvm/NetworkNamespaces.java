package dev.troupe.cluster.multijvm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Network namespaces joined by veth pairs to one bridge, for partition tests (needs root and
 * iproute2). Node {@code i} (from 1) lives in its own namespace with the address
 * {@code 10.<a>.<b>.i/24}; the bridge in the root namespace holds {@code .254}. A partition takes
 * a node's veth link down on the bridge side: the node reaches nobody and nobody reaches it, and
 * its sockets stay open, as in a real network split. Names and the subnet derive from this JVM's
 * pid, so concurrent runs do not collide. {@link #close} removes everything, and a shutdown hook
 * does too if the JVM exits without it.
 */
final class NetworkNamespaces implements AutoCloseable {

    private final String prefix;
    private final String subnet;
    private final int nodes;
    private final Thread hook;
    private boolean closed;

    private NetworkNamespaces(int nodes) {
        final long pid = ProcessHandle.current().pid();
        this.prefix = "tr" + (pid % 100_000);
        this.subnet = "10." + (200 + (int) (pid % 50)) + "." + (int) ((pid / 50) % 250) + ".";
        this.nodes = nodes;
        this.hook = new Thread(this::remove, "netns-cleanup");
    }

    /** @return whether this process may create namespaces (root with iproute2) */
    static boolean available() {
        try {
            final Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && "root".equals(System.getProperty("user.name"));
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * @param nodes how many namespaces
     * @return the namespaces, up, each reaching the others through the bridge
     */
    static NetworkNamespaces create(int nodes) {
        final NetworkNamespaces n = new NetworkNamespaces(nodes);
        Runtime.getRuntime().addShutdownHook(n.hook);
        try {
            n.remove(); // leftovers of a crashed run with the same pid
            final String br = n.bridge();
            run("ip", "link", "add", br, "type", "bridge");
            run("ip", "addr", "add", n.subnet + "254/24", "dev", br);
            run("ip", "link", "set", br, "up");
            for (int i = 1; i <= nodes; i++) {
                final String ns = n.namespace(i);
                run("ip", "netns", "add", ns);
                run("ip", "link", "add", n.outer(i), "type", "veth", "peer", "name", n.inner(i));
                run("ip", "link", "set", n.inner(i), "netns", ns);
                run("ip", "link", "set", n.outer(i), "master", br);
                run("ip", "link", "set", n.outer(i), "up");
                run("ip", "-n", ns, "addr", "add", n.address(i) + "/24", "dev", n.inner(i));
                run("ip", "-n", ns, "link", "set", n.inner(i), "up");
                run("ip", "-n", ns, "link", "set", "lo", "up");
            }
            return n;
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
    }

    /** @return the address of node {@code i} (from 1) */
    String address(int i) {
        return subnet + i;
    }

    /** @return the command prefix that runs a process in node {@code i}'s namespace */
    List<String> exec(int i) {
        return List.of("ip", "netns", "exec", namespace(i));
    }

    /** Cuts node {@code i} off from the bridge (and so from every other node). */
    void isolate(int i) {
        run("ip", "link", "set", outer(i), "down");
    }

    /** Joins node {@code i} to the bridge again. */
    void reconnect(int i) {
        run("ip", "link", "set", outer(i), "up");
    }

    private String bridge() {
        return prefix + "br";
    }

    private String namespace(int i) {
        return prefix + "ns" + i;
    }

    private String outer(int i) {
        return prefix + "v" + i;
    }

    private String inner(int i) {
        return prefix + "v" + i + "n";
    }

    private void remove() {
        for (int i = 1; i <= nodes; i++) {
            runQuietly("ip", "netns", "del", namespace(i)); // takes the veth pair with it
            runQuietly("ip", "link", "del", outer(i));
        }
        runQuietly("ip", "link", "del", bridge());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        remove();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down; the hook runs anyway
        }
    }

    private static void run(String... cmd) {
        final String out = exec(cmd);
        if (out != null) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    private static void runQuietly(String... cmd) {
        exec(cmd);
    }

    /** @return null on success, else the command's output */
    private static String exec(String... cmd) {
        try {
            final Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).redirectErrorStream(true).start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "timed out";
            }
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e.toString();
        }
    }

    @Override
    public String toString() {
        return "NetworkNamespaces(" + prefix + ", " + subnet + "0/24, " + nodes + " nodes)";
    }
}
