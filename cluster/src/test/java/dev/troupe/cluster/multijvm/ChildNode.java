package dev.troupe.cluster.multijvm;

import dev.troupe.cluster.testkit.ChildJvm;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A {@link ClusterNodeMain} in a child JVM, as the multi-node tests drive it. */
final class ChildNode implements AutoCloseable {

    static final Duration START = Duration.ofSeconds(60);

    final String name;
    final String host;
    final int port;
    final ChildJvm jvm;
    final long uid;

    private ChildNode(String name, String host, int port, ChildJvm jvm, long uid) {
        this.name = name;
        this.host = host;
        this.port = port;
        this.jvm = jvm;
        this.uid = uid;
    }

    /** Starts the JVM without waiting for it. */
    static ChildJvm launch(String name, List<String> prefix, String host, int port, String discovery) {
        return launch(name, prefix, host, port, discovery, List.of());
    }

    /** Starts the JVM without waiting for it, with extra options ({@code -Dtroupe.test.downing=KEEP_MAJORITY}, see {@link TestNodes}). */
    static ChildJvm launch(String name, List<String> prefix, String host, int port, String discovery, List<String> options) {
        final List<String> jvm = new java.util.ArrayList<>(List.of("-Xmx96m", "-XX:TieredStopAtLevel=1", "-Xss512k"));
        jvm.addAll(options);
        return ChildJvm.start(name, prefix, ClusterNodeMain.class, jvm, name, host, Integer.toString(port), discovery);
    }

    /** Waits for a launched JVM's READY line. */
    static ChildNode ready(String name, String host, int port, ChildJvm jvm) {
        final String ready = jvm.awaitLine("READY ", START);
        return new ChildNode(name, host, port, jvm, Long.parseUnsignedLong(ready.substring(6).trim(), 16));
    }

    static ChildNode start(String name, List<String> prefix, String host, int port, String discovery) {
        return ready(name, host, port, launch(name, prefix, host, port, discovery));
    }

    /** @return this node's view now, as {@link View#parse} reads {@link TestNodes#describe} */
    View view() {
        jvm.send("state");
        return View.parse(jvm.awaitLine("STATE ", Duration.ofSeconds(20)).substring(6));
    }

    /** @return how many workers this node's receptionist lists as reachable now */
    int routees() {
        jvm.send("routees");
        return Integer.parseInt(jvm.awaitLine("ROUTEES ", Duration.ofSeconds(20)).substring(8).trim());
    }

    String hostPort() {
        return host + ":" + port;
    }

    @Override
    public void close() {
        jvm.close();
    }

    @Override
    public String toString() {
        return name + "(" + hostPort() + "#" + Long.toHexString(uid) + ")";
    }

    /** A node's view: its own status, and each member's uid, status and reachability by host:port. */
    record View(String self, Map<String, String> members, Map<String, Long> uids) {
        static View parse(String text) {
            final String[] parts = text.split(" ", 2);
            final Map<String, String> members = new java.util.TreeMap<>();
            final Map<String, Long> uids = new java.util.TreeMap<>();
            if (parts.length > 1 && !parts[1].isBlank()) {
                for (String m : parts[1].split(",")) {
                    final int hash = m.indexOf('#');
                    final int eq = m.indexOf('=');
                    members.put(m.substring(0, hash), m.substring(eq + 1));
                    uids.put(m.substring(0, hash), Long.parseUnsignedLong(m.substring(hash + 1, eq), 16));
                }
            }
            return new View(parts[0].substring("self=".length()), members, uids);
        }
    }
}
