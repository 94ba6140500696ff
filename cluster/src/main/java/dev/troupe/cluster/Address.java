package dev.troupe.cluster;

import dev.troupe.actor.ActorPath;
import dev.troupe.cluster.discovery.HostPort;

import java.util.Objects;

/**
 * The address of a node, {@code troupe://system@host:port}: the system's name and the host and
 * port its transport listens on. Ordered by text, so every node sorts members the same way.
 *
 * @param system the actor system's name, the same on every member of a cluster
 * @param host the node's canonical host (a name or an IP literal)
 * @param port the node's canonical port
 */
public record Address(String system, String host, int port) implements Comparable<Address> {

    /** Validates the parts. */
    public Address {
        Objects.requireNonNull(host, "host");
        // ActorPath.root validates the system name and the port range.
        ActorPath.root(system, host, port);
    }

    /**
     * @param text {@code troupe://system@host:port}, with or without a trailing slash
     * @return the address
     * @throws IllegalArgumentException if the text is not a node address
     */
    public static Address parse(String text) {
        final ActorPath p = ActorPath.parse(text);
        if (!p.hasAddress() || p.depth() != 0) {
            throw new IllegalArgumentException("not a node address (expected troupe://system@host:port): " + text);
        }
        return new Address(p.system(), p.host(), p.port());
    }

    /**
     * @param path a path with an address
     * @return the address of the node the path is on
     */
    public static Address of(ActorPath path) {
        if (!path.hasAddress()) {
            throw new IllegalArgumentException("the path has no node address: " + path);
        }
        return new Address(path.system(), path.host(), path.port());
    }

    /** @return the root actor path on this node, {@code troupe://system@host:port/} */
    public ActorPath rootPath() {
        return ActorPath.root(system, host, port);
    }

    /** @return {@code host:port} */
    public HostPort hostPort() {
        return new HostPort(host, port);
    }

    @Override
    public int compareTo(Address o) {
        return toString().compareTo(o.toString());
    }

    @Override
    public String toString() {
        final String root = rootPath().toString();
        return root.substring(0, root.length() - 1);
    }
}
