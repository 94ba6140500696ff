package dev.troupe.actor;

import java.util.Objects;

/**
 * The address of an actor: {@code troupe://system/user/parent/child} for a local actor
 * and {@code troupe://system@host:port/user/parent/child} for one on another node.
 *
 * <p>Paths are immutable and are created when an actor is spawned or a remote ref is
 * resolved, never per message. Equality covers the address and the elements, and the
 * {@link #uid()} that tells incarnations of the same path apart.
 *
 * <p>A path is compact: its parent, its own name and a shared address. The text form is
 * rendered on first use of {@link #toString()} and then kept; no ancestor keeps a text of its
 * own on a child's behalf, so building, parsing and rendering a path are linear in its length.
 * Text from outside (another node, a configuration) should be parsed with
 * {@link #parse(String, int, int)}, which bounds length and depth before doing any work.
 */
public final class ActorPath implements Comparable<ActorPath> {

    /** The URI scheme of every actor path. */
    public static final String SCHEME = "troupe";

    private static final String PREFIX = SCHEME + "://";

    /** The system and node an actor lives on, shared by every path below one root. */
    private static final class Address {
        final String system;
        final String host;
        final int port;
        /** {@code troupe://system[@host:port]/}, the root path's text. */
        final String rootText;

        Address(String system, String host, int port) {
            this.system = system;
            this.host = host;
            this.port = port;
            final StringBuilder sb = new StringBuilder(PREFIX.length() + system.length() + (host == null ? 1 : host.length() + 9))
                .append(PREFIX).append(system);
            if (host != null) {
                sb.append('@');
                if (host.indexOf(':') >= 0) {
                    sb.append('[').append(host).append(']');
                } else {
                    sb.append(host);
                }
                sb.append(':').append(port);
            }
            this.rootText = sb.append('/').toString();
        }

        boolean sameAs(Address o) {
            return this == o || (port == o.port && system.equals(o.system) && Objects.equals(host, o.host));
        }

        int hash() {
            return (system.hashCode() * 31 + Objects.hashCode(host)) * 31 + port;
        }
    }

    private final Address address;
    private final ActorPath parent;
    private final String name;
    private final long uid;
    private final int depth;
    /** The text form, rendered on first use; a benign race (every thread renders the same string). */
    private String text;
    /** The hash, computed on first use; 0 means not yet. */
    private int hash;

    private ActorPath(Address address, ActorPath parent, String name, long uid) {
        this.address = address;
        this.parent = parent;
        this.name = name;
        this.uid = uid;
        this.depth = parent == null ? 0 : parent.depth + 1;
    }

    /**
     * The root path of a local system.
     *
     * @param system the system name
     * @return {@code troupe://system/}
     */
    public static ActorPath root(String system) {
        return new ActorPath(new Address(validateSystemName(system), null, -1), null, "", 0);
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
        return new ActorPath(new Address(validateSystemName(system), host, port), null, "", 0);
    }

    /**
     * Parses a path in its text form, {@code troupe://system[@host:port]/a/b}, with no bound on
     * length or depth: for text the program itself wrote. Text from outside goes through
     * {@link #parse(String, int, int)}.
     *
     * @param text the path
     * @return the parsed path, with uid 0
     * @throws InvalidActorPathException if the text is not an actor path
     */
    public static ActorPath parse(String text) {
        return parse(text, Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    /**
     * Parses a path in its text form, {@code troupe://system[@host:port]/a/b}, refusing text
     * longer than {@code maxLength} characters or with more than {@code maxDepth} elements
     * before building anything. Time and memory are linear in the text's length.
     *
     * @param text the path
     * @param maxLength the most characters accepted
     * @param maxDepth the most elements below the root accepted
     * @return the parsed path, with uid 0
     * @throws InvalidActorPathException if the text is not an actor path or exceeds a bound;
     *         {@link InvalidActorPathException#reason()} says which
     */
    public static ActorPath parse(String text, int maxLength, int maxDepth) {
        if (text == null) {
            throw new InvalidActorPathException(InvalidActorPathException.Reason.MALFORMED, "actor path must not be null");
        }
        if (text.length() > maxLength) {
            // Say how long, not what: the text may be huge and hostile.
            throw new InvalidActorPathException(InvalidActorPathException.Reason.TOO_LONG,
                "actor path of " + text.length() + " characters exceeds the limit of " + maxLength);
        }
        if (!text.startsWith(PREFIX)) {
            throw malformed("not an actor path (expected " + PREFIX + "...)", text);
        }
        final int slash = text.indexOf('/', PREFIX.length());
        if (slash >= 0 && maxDepth != Integer.MAX_VALUE) {
            int elements = 0;
            int start = slash + 1;
            while (start < text.length()) {
                int end = text.indexOf('/', start);
                if (end < 0) {
                    end = text.length();
                }
                if (end > start && ++elements > maxDepth) {
                    throw new InvalidActorPathException(InvalidActorPathException.Reason.TOO_DEEP,
                        "actor path has more than " + maxDepth + " elements");
                }
                start = end + 1;
            }
        }
        final String authority = slash < 0 ? text.substring(PREFIX.length()) : text.substring(PREFIX.length(), slash);
        ActorPath path;
        try {
            path = parseRoot(authority, text);
        } catch (InvalidActorPathException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage(), text);
        }
        if (slash >= 0) {
            int start = slash + 1;
            while (start < text.length()) {
                int end = text.indexOf('/', start);
                if (end < 0) {
                    end = text.length();
                }
                if (end > start) {
                    final String element = text.substring(start, end);
                    final String problem = elementProblem(element);
                    if (problem != null) {
                        throw malformed(problem, text);
                    }
                    path = new ActorPath(path.address, path, element, 0);
                }
                start = end + 1;
            }
        }
        return path;
    }

    private static ActorPath parseRoot(String authority, String text) {
        final int at = authority.indexOf('@');
        if (at < 0) {
            return root(authority);
        }
        final String hostPort = authority.substring(at + 1);
        final int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw malformed("actor path address needs host:port", text);
        }
        final int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw malformed("bad port in actor path", text);
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return root(authority.substring(0, at), host, port);
    }

    private static InvalidActorPathException malformed(String problem, String text) {
        // Quote at most the start of the text: it may be long and come from another node.
        final String shown = text.length() <= 200 ? text : text.substring(0, 200) + "...(" + text.length() + " characters)";
        return new InvalidActorPathException(InvalidActorPathException.Reason.MALFORMED, problem + ": " + shown);
    }

    /**
     * @param childName the child's name
     * @return the path of a child of this path, with uid 0
     * @throws InvalidActorNameException if the name is empty or contains '/', '@', '#', '?',
     *         whitespace or a control character
     */
    public ActorPath child(String childName) {
        return new ActorPath(address, this, validateElement(childName), 0);
    }

    /**
     * @param childName the child's name
     * @param childUid the incarnation id of the child
     * @return the path of a child of this path
     * @throws InvalidActorNameException if the name is empty or contains '/', '@', '#', '?',
     *         whitespace or a control character
     */
    public ActorPath child(String childName, long childUid) {
        return new ActorPath(address, this, validateElement(childName), childUid);
    }

    /**
     * @param newUid the incarnation id
     * @return this path with another uid
     */
    public ActorPath withUid(long newUid) {
        return new ActorPath(address, parent, name, newUid);
    }

    /**
     * @param newHost the node's canonical host
     * @param newPort the node's canonical port
     * @return the same elements under the address of a node
     */
    public ActorPath withAddress(String newHost, int newPort) {
        return rebase(root(address.system, newHost, newPort));
    }

    /**
     * @return this path without its address, as the owning node sees it
     */
    public ActorPath withoutAddress() {
        return rebase(root(address.system));
    }

    private ActorPath rebase(ActorPath newRoot) {
        final String[] names = elementNames();
        ActorPath p = newRoot;
        for (int i = 0; i < names.length; i++) {
            p = new ActorPath(newRoot.address, p, names[i], i == names.length - 1 ? uid : 0);
        }
        return p;
    }

    /** @return the element names from the root down */
    private String[] elementNames() {
        final String[] names = new String[depth];
        ActorPath p = this;
        for (int i = depth - 1; i >= 0; i--) {
            names[i] = p.name;
            p = p.parent;
        }
        return names;
    }

    /** @return the system name */
    public String system() {
        return address.system;
    }

    /** @return the host of a remote path, or null for a local one */
    public String host() {
        return address.host;
    }

    /** @return the port of a remote path, or -1 for a local one */
    public int port() {
        return address.port;
    }

    /** @return whether this path names a node address */
    public boolean hasAddress() {
        return address.host != null;
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
        return toString().substring(address.rootText.length());
    }

    /** @return the root of this path */
    public ActorPath root() {
        ActorPath p = this;
        while (p.parent != null) {
            p = p.parent;
        }
        return p;
    }

    private String render() {
        if (parent == null) {
            return address.rootText;
        }
        if (parent.parent == null) {
            return address.rootText.concat(name);
        }
        // A live actor's parent has usually rendered its text already (its log lines, its turns'
        // logging context): then one concatenation, with no intermediate garbage. Only a text
        // already there is used, so rendering never makes an ancestor keep a text of its own and
        // stays linear in the path's length (a deep path parsed from outside renders in one pass).
        final String parentText = parent.text;
        if (parentText != null) {
            return parentText + "/" + name;
        }
        int length = address.rootText.length() + depth - 1;
        for (ActorPath p = this; p.parent != null; p = p.parent) {
            length += p.name.length();
        }
        final String[] names = elementNames();
        final StringBuilder sb = new StringBuilder(length).append(address.rootText);
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                sb.append('/');
            }
            sb.append(names[i]);
        }
        return sb.toString();
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

    /**
     * Checks a name for use as a path element (an actor's name), without building a path.
     *
     * @param element the name
     * @return the name
     * @throws InvalidActorNameException if the name is empty or contains '/', '@', '#', '?',
     *         whitespace or a control character
     */
    public static String validatePathElement(String element) {
        return validateElement(element);
    }

    private static String validateElement(String element) {
        final String problem = elementProblem(element);
        if (problem != null) {
            throw new InvalidActorNameException(problem);
        }
        return element;
    }

    private static String elementProblem(String element) {
        if (element == null || element.isEmpty()) {
            return "actor name must not be empty";
        }
        for (int i = 0; i < element.length(); i++) {
            final char c = element.charAt(i);
            final boolean ok = c > ' ' && c < 0x7f
                // Printable ASCII (every character of a typical name): only four are refused.
                ? c != '/' && c != '@' && c != '#' && c != '?'
                : !Character.isWhitespace(c) && !Character.isISOControl(c);
            if (!ok) {
                final String shown = element.length() <= 100 ? element : element.substring(0, 100) + "...";
                return "invalid actor name '" + shown + "': must not contain '" + c + "'";
            }
        }
        return null;
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
        if (uid != other.uid || depth != other.depth || !address.sameAs(other.address)) {
            return false;
        }
        for (ActorPath a = this, b = other; a != null; a = a.parent, b = b.parent) {
            if (a == b) {
                return true;
            }
            if (!a.name.equals(b.name)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = address.hash();
            for (ActorPath p = this; p.parent != null; p = p.parent) {
                h = h * 31 + p.name.hashCode();
            }
            h = h * 31 + Long.hashCode(uid);
            if (h == 0) {
                h = 1;
            }
            hash = h;
        }
        return h;
    }

    @Override
    public int compareTo(ActorPath o) {
        final int c = toString().compareTo(o.toString());
        return c != 0 ? c : Long.compare(uid, o.uid);
    }

    /** @return the path text, without the uid */
    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            t = render();
            text = t;
        }
        return t;
    }
}
