package dev.troupe.cluster.discovery;

import java.util.Objects;

/**
 * A candidate transport endpoint, as discovery finds it: a host (name or IP literal) and a port.
 *
 * @param host the host, without brackets for IPv6
 * @param port the port, 1 to 65535
 */
public record HostPort(String host, int port) implements Comparable<HostPort> {

    /** Validates the parts. */
    public HostPort {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range (1-65535): " + port);
        }
    }

    /**
     * @param text {@code host:port} or {@code [v6]:port}
     * @return the parsed endpoint
     * @throws IllegalArgumentException naming the text if it is malformed
     */
    public static HostPort parse(String text) {
        Objects.requireNonNull(text, "text");
        final String t = text.trim();
        final int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("expected host:port but got '" + text + "'");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("an IPv6 host needs brackets, [::1]:port, in '" + text + "'");
        }
        final int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in '" + text + "'", e);
        }
        return new HostPort(host, port);
    }

    @Override
    public int compareTo(HostPort o) {
        final int c = host.compareTo(o.host);
        return c != 0 ? c : Integer.compare(port, o.port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
