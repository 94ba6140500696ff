package dev.troupe.cluster.node;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The nodes of a test of {@link TroupeNode}s in this JVM, one per loopback address (Linux routes
 * 127.0.0.0/8 to {@code lo} without configuration): a free port on each, the seeds of static
 * discovery naming them all, and the nodes the test started, closed after each test. Register it
 * with {@code @RegisterExtension}.
 */
final class LoopbackNodes implements AfterEachCallback {

    private final String[] hosts;
    private final int[] ports;
    private final String[] seeds;
    private final List<TroupeNode> nodes = new ArrayList<>();

    /** @param hosts a loopback address per node */
    LoopbackNodes(String... hosts) {
        this.hosts = hosts.clone();
        this.ports = new int[hosts.length];
        this.seeds = new String[hosts.length];
        for (int i = 0; i < hosts.length; i++) {
            ports[i] = freePort(hosts[i]);
            seeds[i] = hosts[i] + ":" + ports[i];
        }
    }

    /** @return the nodes' loopback addresses, in order */
    String[] hosts() {
        return hosts.clone();
    }

    /** @return node {@code i}'s address */
    String host(int i) {
        return hosts[i];
    }

    /** @return node {@code i}'s remote port */
    int port(int i) {
        return ports[i];
    }

    /** @return {@code host:port} of every node, for static discovery */
    String[] seeds() {
        return seeds.clone();
    }

    /**
     * @param node a started node
     * @return it, closed after the test
     */
    TroupeNode add(TroupeNode node) {
        nodes.add(node);
        return node;
    }

    /** @return the nodes started and not removed, in order (a test may remove one it closes itself) */
    List<TroupeNode> nodes() {
        return nodes;
    }

    /** @param wait the bound for each node to be up */
    void awaitUp(Duration wait) {
        for (TroupeNode n : nodes) {
            n.awaitUp(wait);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (TroupeNode n : nodes) {
            n.close();
        }
        nodes.clear();
    }

    private static int freePort(String host) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(host, 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
