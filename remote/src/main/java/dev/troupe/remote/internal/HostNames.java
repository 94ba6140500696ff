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
