package dev.troupe.cluster.sharding.internal;

import java.nio.charset.StandardCharsets;

/**
 * Entity ids as actor names: any id is allowed, but an actor name must not contain '/', '@',
 * '#', '?', whitespace or control characters, so those (and '%') are written as %XX of their
 * UTF-8 bytes, as in a URL. Used when an entity starts or passivates itself, never per message.
 */
final class EntityNames {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private EntityNames() {
    }

    private static boolean needsEscape(char c) {
        return c == '/' || c == '@' || c == '#' || c == '?' || c == '%' || Character.isWhitespace(c) || Character.isISOControl(c)
            || Character.isSurrogate(c);
    }

    /**
     * @param entityId an entity id, not empty
     * @return a valid actor name for it
     */
    static String encode(String entityId) {
        int i = 0;
        while (i < entityId.length() && !needsEscape(entityId.charAt(i))) {
            i++;
        }
        if (i == entityId.length()) {
            return entityId;
        }
        final StringBuilder sb = new StringBuilder(entityId.length() + 8).append(entityId, 0, i);
        while (i < entityId.length()) {
            final char c = entityId.charAt(i);
            if (!needsEscape(c)) {
                sb.append(c);
                i++;
                continue;
            }
            final int end = Character.isHighSurrogate(c) && i + 1 < entityId.length() && Character.isLowSurrogate(entityId.charAt(i + 1)) ? i + 2 : i + 1;
            for (byte b : entityId.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                sb.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
            i = end;
        }
        return sb.toString();
    }

    /**
     * @param name a name made by {@link #encode}
     * @return the entity id
     */
    static String decode(String name) {
        if (name.indexOf('%') < 0) {
            return name;
        }
        final StringBuilder sb = new StringBuilder(name.length());
        final byte[] run = new byte[name.length()];
        int i = 0;
        while (i < name.length()) {
            if (name.charAt(i) != '%') {
                sb.append(name.charAt(i++));
                continue;
            }
            int n = 0;
            while (i + 3 <= name.length() && name.charAt(i) == '%') {
                run[n++] = (byte) Integer.parseInt(name, i + 1, i + 3, 16);
                i += 3;
            }
            if (n == 0) {
                sb.append(name.charAt(i++)); // a lone '%' at the end: not made by encode, kept as is
            } else {
                sb.append(new String(run, 0, n, StandardCharsets.UTF_8));
            }
        }
        return sb.toString();
    }
}
