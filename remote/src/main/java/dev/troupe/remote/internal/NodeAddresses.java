package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.InvalidActorPathException;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.RemoteSettings;

/**
 * This node's identity on the wire (system name, UID, canonical host and port) and the one place
 * where addresses are compared and paths from the wire are parsed: whether a path is this node's,
 * whether a claimed address is this node's own, which association key an address has, whether a
 * path names the node a connection came from. Immutable, thread-safe.
 *
 * <p>Addresses are compared as the text they were written in (the host case-insensitively only
 * where a handshake claims this node's own address, as before this class existed).
 */
final class NodeAddresses {

    private final String systemName;
    private final long uid;
    private final String host;
    private final int port;
    private final ActorPath address;
    private final int maxPathLength;
    private final int maxPathDepth;

    NodeAddresses(String systemName, long uid, String host, int port, RemoteSettings settings) {
        this.systemName = systemName;
        this.uid = uid;
        this.host = host;
        this.port = port;
        this.address = ActorPath.root(systemName, host, port);
        this.maxPathLength = settings.maxPathLength();
        this.maxPathDepth = settings.maxPathDepth();
    }

    /** @return {@code troupe://system@host:port/} of this node, as other nodes dial it */
    ActorPath address() {
        return address;
    }

    String systemName() {
        return systemName;
    }

    long uid() {
        return uid;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** @return the path with this node's address, for a local path; unchanged if it has an address */
    ActorPath addressed(ActorPath path) {
        return path.hasAddress() ? path : path.withAddress(host, port);
    }

    /** @return whether a path names an actor of this node (no address, or this node's) */
    boolean isLocal(ActorPath path) {
        return !path.hasAddress() || (path.port() == port && path.system().equals(systemName) && path.host().equals(host));
    }

    /** @return whether a handshake's claimed address is this node's own */
    boolean isOwnAddress(String system, String claimedHost, int claimedPort) {
        return system.equals(systemName) && claimedPort == port && claimedHost.equalsIgnoreCase(host);
    }

    /** @return the key of a node's association, {@code system@host:port} */
    static String key(ActorPath root) {
        return key(root.system(), root.host(), root.port());
    }

    static String key(String system, String host, int port) {
        return system + "@" + host + ":" + port;
    }

    /** @return whether an addressed path is on the node whose root is {@code root} */
    static boolean sameNode(ActorPath path, ActorPath root) {
        return path.port() == root.port() && path.system().equals(root.system()) && path.host().equals(root.host());
    }

    /**
     * Parses a path that came from a peer, with the runtime's bounded parser: text longer or
     * deeper than the limits is refused before anything is built, in time linear in its length.
     *
     * @throws FrameRejectedException {@code path-too-long} (length or depth) or {@code malformed-frame}
     */
    ActorPath parseWirePath(String text) {
        final ActorPath path;
        try {
            path = ActorPath.parse(text, maxPathLength, maxPathDepth);
        } catch (InvalidActorPathException e) {
            throw new FrameRejectedException(e.reason() == InvalidActorPathException.Reason.MALFORMED
                ? FrameRejection.MALFORMED_FRAME : FrameRejection.PATH_TOO_LONG, e.getMessage());
        }
        if (path.hasAddress() && (!HostNames.isValid(path.host()) || path.port() < 1)) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "actor path with an invalid address: " + text);
        }
        return path;
    }
}
