package dev.troupe.remote.internal;

/**
 * Checks that a host a peer claims (or a setting names) is a DNS hostname or an IP literal, by
 * its characters alone: no lookup, so it is safe on untrusted input. Refuses anything that
 * could break a log line, a metric label or an address ({@code /}, {@code @}, whitespace,
 * control characters, zone ids). Stateless.
 */
public final class HostNames {

    /** Longest DNS name (RFC 1035). */
    static final int MAX_LENGTH = 253;

    private HostNames() {
    }

    /**
     * @param host a hostname ({@code node-1.example.com}, {@code worker_1}), an IPv4 literal or
     *             an IPv6 literal without brackets
     * @return whether it is one
     */
    public static boolean isValid(String host) {
        if (host == null || host.isEmpty() || host.length() > MAX_LENGTH) {
            return false;
        }
        return host.indexOf(':') >= 0 ? isIpv6(host) : isHostname(host);
    }

    /** @return whether the text is an IPv4 or IPv6 literal (not a hostname) */
    public static boolean isIpLiteral(String host) {
        if (host == null || host.isEmpty() || host.length() > MAX_LENGTH) {
            return false;
        }
        return host.indexOf(':') >= 0 ? isIpv6(host) : isIpv4(host);
    }

    /** Labels of letters, digits, '-' and '_' (compose service names use '_'), 1 to 63 each, no leading or trailing '-'. */
    private static boolean isHostname(String host) {
        int labelStart = 0;
        for (int i = 0; i <= host.length(); i++) {
            if (i == host.length() || host.charAt(i) == '.') {
                final int n = i - labelStart;
                if (n < 1 || n > 63 || host.charAt(labelStart) == '-' || host.charAt(i - 1) == '-') {
                    return false;
                }
                labelStart = i + 1;
                continue;
            }
            final char c = host.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /**
     * The one spelling of a host that addresses are compared by, computed from its characters
     * alone (no lookup): an IPv4 literal as four decimal numbers without leading zeros
     * ({@code 127.000.000.001} is {@code 127.0.0.1}); an IPv6 literal in RFC 5952's form (lower
     * case, no leading zeros, the longest run of zero groups as {@code ::}), and one that maps an
     * IPv4 address ({@code ::ffff:127.0.0.1}, {@code 0:0:0:0:0:ffff:7f00:1}) as that IPv4
     * address; a host name in lower case. Anything {@link #isValid} refuses is returned as it is.
     *
     * @param host a host as a peer or a setting wrote it
     * @return its canonical spelling
     */
    public static String canonical(String host) {
        if (host == null || host.isEmpty() || host.length() > MAX_LENGTH) {
            return host;
        }
        if (host.indexOf(':') >= 0) {
            final int[] g = ipv6Groups(host);
            return g == null ? host : ipv6Text(g);
        }
        if (isIpv4(host)) {
            final int[] o = ipv4Octets(host);
            return o[0] + "." + o[1] + "." + o[2] + "." + o[3];
        }
        return isHostname(host) ? host.toLowerCase(java.util.Locale.ROOT) : host;
    }

    private static int[] ipv4Octets(String s) {
        final int[] o = new int[4];
        int part = 0;
        int value = 0;
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '.') {
                o[part++] = value;
                value = 0;
            } else {
                value = value * 10 + (c - '0');
            }
        }
        o[part] = value;
        return o;
    }

    /** @return the eight 16-bit groups of an IPv6 literal, or null if it is not one */
    private static int[] ipv6Groups(String host) {
        if (!isIpv6(host)) {
            return null;
        }
        final int dc = host.indexOf("::");
        final int[] head = dc >= 0 ? parseGroups(host.substring(0, dc)) : parseGroups(host);
        final int[] tail = dc >= 0 ? parseGroups(host.substring(dc + 2)) : new int[0];
        final int[] g = new int[8];
        System.arraycopy(head, 0, g, 0, head.length);
        System.arraycopy(tail, 0, g, 8 - tail.length, tail.length);
        return g;
    }

    /** Parses {@code g:g:g} (checked by {@link #isIpv6}), a dotted IPv4 tail as two groups. */
    private static int[] parseGroups(String s) {
        if (s.isEmpty()) {
            return new int[0];
        }
        final String[] parts = s.split(":", -1);
        final boolean v4 = parts[parts.length - 1].indexOf('.') >= 0;
        final int[] g = new int[parts.length + (v4 ? 1 : 0)];
        for (int i = 0; i < parts.length; i++) {
            if (v4 && i == parts.length - 1) {
                final int[] o = ipv4Octets(parts[i]);
                g[i] = (o[0] << 8) | o[1];
                g[i + 1] = (o[2] << 8) | o[3];
            } else {
                g[i] = Integer.parseInt(parts[i], 16);
            }
        }
        return g;
    }

    private static String ipv6Text(int[] g) {
        if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xFFFF) {
            return (g[6] >>> 8) + "." + (g[6] & 0xFF) + "." + (g[7] >>> 8) + "." + (g[7] & 0xFF); // IPv4-mapped
        }
        int bestStart = -1;
        int bestLength = 1; // RFC 5952: a single zero group is not shortened
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    private static boolean isIpv6(String host) {
        final int dc = host.indexOf("::");
        if (dc >= 0) {
            if (host.indexOf("::", dc + 1) >= 0) {
                return false;
            }
            final int head = groups(host.substring(0, dc), false);
            final int tail = groups(host.substring(dc + 2), true);
            return head >= 0 && tail >= 0 && head + tail <= 7;
        }
        return groups(host, true) == 8;
    }

    /** @return the 16-bit groups in {@code g:g:g} (a dotted IPv4 tail counts 2), 0 for "", -1 if invalid */
    private static int groups(String s, boolean ipv4Tail) {
        if (s.isEmpty()) {
            return 0;
        }
        int count = 0;
        int start = 0;
        while (true) {
            int end = s.indexOf(':', start);
            final boolean last = end < 0;
            if (last) {
                end = s.length();
            }
            if (end == start) {
                return -1;
            }
            if (last && ipv4Tail && s.indexOf('.', start) >= 0) {
                if (!isIpv4(s.substring(start))) {
                    return -1;
                }
                count += 2;
            } else {
                if (end - start > 4) {
                    return -1;
                }
                for (int i = start; i < end; i++) {
                    if (!isHexDigit(s.charAt(i))) {
                        return -1;
                    }
                }
                count++;
            }
            if (last) {
                return count;
            }
            start = end + 1;
        }
    }

    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static boolean isIpv4(String s) {
        int parts = 0;
        int value = -1;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || s.charAt(i) == '.') {
                if (value < 0 || value > 255) {
                    return false;
                }
                parts++;
                value = -1;
                continue;
            }
            final char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            value = value < 0 ? c - '0' : value * 10 + (c - '0');
            if (value > 255) {
                return false;
            }
        }
        return parts == 4;
    }
}
