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
 * <p>Addresses are compared by their canonical spelling ({@link HostNames#canonical}: IPv4 without
 * leading zeros, IPv6 in RFC 5952's form with IPv4-mapped addresses as IPv4, host names in lower
 * case), never as the text a peer chose. This node's own names are resolved once, when the
 * transport starts: a claim or a path naming this node by one of its IP addresses, its canonical
 * host name, {@code localhost} for a loopback node, or any local address for a node bound to every
 * interface, names this node. Host names a peer sends are never looked up.
 */
final class NodeAddresses {

    private final String systemName;
    private final long uid;
    private final String host;
    private final int port;
    private final ActorPath address;
    private final int maxPathLength;
    private final int maxPathDepth;
    /** Canonical spellings of every host that names this node (its own names, resolved once). */
    private final java.util.Set<String> ownHosts;

    NodeAddresses(String systemName, long uid, String host, int port, RemoteSettings settings) {
        this.systemName = systemName;
        this.uid = uid;
        this.host = HostNames.canonical(host);
        this.port = port;
        this.address = ActorPath.root(systemName, this.host, port);
        this.maxPathLength = settings.maxPathLength();
        this.maxPathDepth = settings.maxPathDepth();
        this.ownHosts = ownHosts(this.host, settings.bindHost());
    }

    /** Start-up only: the canonical host, the bind host, and what they resolve to (one lookup each). */
    private static java.util.Set<String> ownHosts(String canonicalHost, String bindHost) {
        final java.util.Set<String> own = new java.util.HashSet<>();
        own.add(canonicalHost);
        final String bind = HostNames.canonical(bindHost);
        final boolean wildcard = "0.0.0.0".equals(bind) || "::".equals(bind);
        if (!wildcard) {
            own.add(bind);
        }
        for (String name : new String[] {canonicalHost, wildcard ? null : bind}) {
            if (name == null) {
                continue;
            }
            try {
                for (java.net.InetAddress a : java.net.InetAddress.getAllByName(name)) {
                    own.add(HostNames.canonical(a.getHostAddress()));
                }
            } catch (java.net.UnknownHostException | SecurityException e) {
                // a name that does not resolve here only names itself
            }
        }
        if (wildcard) {
            try {
                final java.util.Enumeration<java.net.NetworkInterface> nics = java.net.NetworkInterface.getNetworkInterfaces();
                while (nics != null && nics.hasMoreElements()) {
                    final java.util.Enumeration<java.net.InetAddress> as = nics.nextElement().getInetAddresses();
                    while (as.hasMoreElements()) {
                        final String a = as.nextElement().getHostAddress();
                        final int zone = a.indexOf('%');
                        own.add(HostNames.canonical(zone >= 0 ? a.substring(0, zone) : a));
                    }
                }
            } catch (java.net.SocketException e) {
                // no interfaces listed: the names above still count
            }
        }
        if (own.contains("127.0.0.1") || own.contains("::1")) {
            own.add("localhost");
        }
        return java.util.Set.copyOf(own);
    }

    /** @return whether {@code claimedHost} (any spelling) names this node's host */
    boolean isOwnHost(String claimedHost) {
        return claimedHost != null && ownHosts.contains(HostNames.canonical(claimedHost));
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

    /**
     * @return the path with this node's address, for a local path (without an address, or with this
     *         node's address in another spelling); a path of another node as it is
     */
    ActorPath addressed(ActorPath path) {
        if (!path.hasAddress()) {
            return path.withAddress(host, port);
        }
        return path.host().equals(host) || !isLocal(path) ? path : path.withAddress(host, port);
    }

    /** @return whether a path names an actor of this node (no address, or this node's in any spelling) */
    boolean isLocal(ActorPath path) {
        return !path.hasAddress() || (path.port() == port && path.system().equals(systemName) && isOwnHost(path.host()));
    }

    /** @return whether a handshake's claimed address is this node's own, in any spelling */
    boolean isOwnAddress(String system, String claimedHost, int claimedPort) {
        return system.equals(systemName) && claimedPort == port && isOwnHost(claimedHost);
    }

    /** @return the key of a node's association, {@code system@host:port} with the canonical host */
    static String key(ActorPath root) {
        return key(root.system(), root.host(), root.port());
    }

    static String key(String system, String host, int port) {
        return system + "@" + HostNames.canonical(host) + ":" + port;
    }

    /** @return the root with its host in canonical spelling (the same object if it already is) */
    static ActorPath canonicalRoot(ActorPath root) {
        final String c = HostNames.canonical(root.host());
        return c.equals(root.host()) ? root : ActorPath.root(root.system(), c, root.port());
    }

    /** @return whether an addressed path is on the node whose root is {@code root} (hosts compared canonically) */
    static boolean sameNode(ActorPath path, ActorPath root) {
        return path.port() == root.port() && path.system().equals(root.system())
            && HostNames.canonical(path.host()).equals(HostNames.canonical(root.host()));
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
        if (path.hasAddress()) {
            // one spelling per node from here on: tables, exports and associations compare by it
            final String c = isLocal(path) ? host : HostNames.canonical(path.host());
            if (!c.equals(path.host())) {
                return path.withAddress(c, path.port());
            }
        }
        return path;
    }
}
