package dev.troupe.actor;

import java.util.Objects;

/**
 * The address of an actor: {@code troupe://system/user/parent/child} for a local actor
 * and {@code troupe://system@host:port/user/parent/child} for one on another node.
 *
 * <p>Paths are immutable and are created when an actor is spawned or a remote ref is
 * resolved, never per message. Equality covers the address and the elements, and the
 * {@link #uid()} that tells incarnations of the same path apart.
 */
public final class ActorPath implements Comparable<ActorPath> {

    /** The URI scheme of every actor path. */
    public static final String SCHEME = "troupe";

    private final String system;
    private final String host;
    private final int port;
    private final ActorPath parent;
    private final String name;
    private final long uid;
    private final int depth;
    private final String text;

    private ActorPath(String system, String host, int port, ActorPath parent, String name, long uid) {
        this.system = system;
        this.host = host;
        this.port = port;
        this.parent = parent;
        this.name = name;
        this.uid = uid;
        this.depth = parent == null ? 0 : parent.depth + 1;
        this.text = render();
    }

    /**
     * The root path of a local system.
     *
     * @param system the system name
     * @return {@code troupe://system/}
     */
    public static ActorPath root(String system) {
        return new ActorPath(validateSystemName(system), null, -1, null, "", 0);
    }

    /**
     * The root path of a system on another node.
     *
     * @param system the system name
     * @param host the node's canonical host
     * @param port the node's canonical port
     * @return {@code troupe://system@host:port/}
     */
    public static ActorPath root(String system, String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        return new ActorPath(validateSystemName(system), host, port, null, "", 0);
    }

    /**
     * Parses a path in its text form, {@code troupe://system[@host:port]/a/b}.
     *
     * @param text the path
     * @return the parsed path, with uid 0
     * @throws IllegalArgumentException if the text is not an actor path
     */
    public static ActorPath parse(String text) {
        final String prefix = SCHEME + "://";
        if (text == null || !text.startsWith(prefix)) {
            throw new IllegalArgumentException("not an actor path (expected " + prefix + "...): " + text);
        }
        final int slash = text.indexOf('/', prefix.length());
        final String authority = slash < 0 ? text.substring(prefix.length()) : text.substring(prefix.length(), slash);
        final int at = authority.indexOf('@');
        ActorPath path;
        if (at < 0) {
            path = root(authority);
        } else {
            final String hostPort = authority.substring(at + 1);
            final int colon = hostPort.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("actor path address needs host:port: " + text);
            }
            final int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port in actor path: " + text, e);
            }
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            path = root(authority.substring(0, at), host, port);
        }
        if (slash >= 0) {
            for (String element : text.substring(slash + 1).split("/")) {
                if (!element.isEmpty()) {
                    path = path.child(element);
                }
            }
        }
        return path;
    }

    /**
     * @param childName the child's name
     * @return the path of a child of this path, with uid 0
     */
    public ActorPath child(String childName) {
        return new ActorPath(system, host, port, this, validateElement(childName), 0);
    }

    /**
     * @param childName the child's name
     * @param childUid the incarnation id of the child
     * @return the path of a child of this path
     */
    public ActorPath child(String childName, long childUid) {
        return new ActorPath(system, host, port, this, validateElement(childName), childUid);
    }

    /**
     * @param newUid the incarnation id
     * @return this path with another uid
     */
    public ActorPath withUid(long newUid) {
        return new ActorPath(system, host, port, parent, name, newUid);
    }

    /**
     * @param newHost the node's canonical host
     * @param newPort the node's canonical port
     * @return the same elements under the address of a node
     */
    public ActorPath withAddress(String newHost, int newPort) {
        ActorPath p = root(system, newHost, newPort);
        for (int i = 1; i <= depth; i++) {
            final ActorPath element = ancestor(depth - i);
            p = i == depth ? p.child(element.name, uid) : p.child(element.name);
        }
        return p;
    }

    /**
     * @return this path without its address, as the owning node sees it
     */
    public ActorPath withoutAddress() {
        ActorPath p = root(system);
        for (int i = 1; i <= depth; i++) {
            final ActorPath element = ancestor(depth - i);
            p = i == depth ? p.child(element.name, uid) : p.child(element.name);
        }
        return p;
    }

    private ActorPath ancestor(int levelsUp) {
        ActorPath p = this;
        for (int i = 0; i < levelsUp; i++) {
            p = p.parent;
        }
        return p;
    }

    /** @return the system name */
    public String system() {
        return system;
    }

    /** @return the host of a remote path, or null for a local one */
    public String host() {
        return host;
    }

    /** @return the port of a remote path, or -1 for a local one */
    public int port() {
        return port;
    }

    /** @return whether this path names a node address */
    public boolean hasAddress() {
        return host != null;
    }

    /** @return the parent path, or null for a root */
    public ActorPath parent() {
        return parent;
    }

    /** @return the last element, empty for a root */
    public String name() {
        return name;
    }

    /** @return the incarnation id (0 when unknown) */
    public long uid() {
        return uid;
    }

    /** @return the number of elements below the root */
    public int depth() {
        return depth;
    }

    /** @return the elements below the root joined by '/', without a leading slash */
    public String elementsString() {
        if (depth == 0) {
            return "";
        }
        final String rootText = root().text;
        return text.substring(rootText.length());
    }

    /** @return the root of this path */
    public ActorPath root() {
        return ancestor(depth);
    }

    private String render() {
        if (parent == null) {
            final StringBuilder sb = new StringBuilder(SCHEME).append("://").append(system);
            if (host != null) {
                sb.append('@');
                if (host.indexOf(':') >= 0) {
                    sb.append('[').append(host).append(']');
                } else {
                    sb.append(host);
                }
                sb.append(':').append(port);
            }
            return sb.append('/').toString();
        }
        return parent.parent == null ? parent.text + name : parent.text + '/' + name;
    }

    private static String validateSystemName(String system) {
        if (system == null || system.isEmpty()) {
            throw new IllegalArgumentException("system name must not be empty");
        }
        for (int i = 0; i < system.length(); i++) {
            final char c = system.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_')) {
                throw new IllegalArgumentException(
                    "invalid system name '" + system + "': use letters, digits, '-' and '_' only");
            }
        }
        return system;
    }

    static String validateElement(String element) {
        if (element == null || element.isEmpty()) {
            throw new IllegalArgumentException("actor name must not be empty");
        }
        for (int i = 0; i < element.length(); i++) {
            final char c = element.charAt(i);
            if (c == '/' || c == '@' || c == '#' || c == '?' || Character.isWhitespace(c) || Character.isISOControl(c)) {
                throw new IllegalArgumentException("invalid actor name '" + element + "': must not contain '" + c + "'");
            }
        }
        return element;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ActorPath)) {
            return false;
        }
        final ActorPath other = (ActorPath) o;
        return uid == other.uid && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode() * 31 + Long.hashCode(uid);
    }

    @Override
    public int compareTo(ActorPath o) {
        final int c = text.compareTo(o.text);
        return c != 0 ? c : Long.compare(uid, o.uid);
    }

    /** @return the path text, without the uid */
    @Override
    public String toString() {
        return text;
    }
}
