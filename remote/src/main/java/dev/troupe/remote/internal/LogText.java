package dev.troupe.remote.internal;

/**
 * Makes peer-supplied text safe for a log line or a label: control characters (CR, LF, ESC,
 * the C1 range, Unicode line and paragraph separators) become {@code \\uXXXX} escapes, and the
 * text is cut to a bounded length. A forged "second log line" or terminal escape in a claimed
 * system name therefore shows up as visible escapes inside one line. Stateless.
 */
final class LogText {

    /** Longest text kept, in characters; longer text ends with "...(N chars)". */
    static final int MAX = 200;

    private LogText() {
    }

    /**
     * @param text peer-supplied text, may be null
     * @return the text with control characters escaped, at most about {@value #MAX} characters
     */
    static String escape(String text) {
        if (text == null) {
            return "null";
        }
        final int n = Math.min(text.length(), MAX);
        boolean clean = text.length() <= MAX;
        for (int i = 0; i < n && clean; i++) {
            clean = !needsEscape(text.charAt(i));
        }
        if (clean) {
            return text;
        }
        final StringBuilder sb = new StringBuilder(n + 16);
        for (int i = 0; i < n; i++) {
            final char c = text.charAt(i);
            if (needsEscape(c)) {
                sb.append("\\u");
                final String hex = Integer.toHexString(c);
                for (int p = hex.length(); p < 4; p++) {
                    sb.append('0');
                }
                sb.append(hex);
            } else {
                sb.append(c);
            }
        }
        if (text.length() > MAX) {
            sb.append("...(").append(text.length()).append(" chars)");
        }
        return sb.toString();
    }

    private static boolean needsEscape(char c) {
        // backslash too, so peer text cannot imitate an escape; FORMAT covers bidi overrides
        return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029' || c == '\\'
            || Character.getType(c) == Character.FORMAT;
    }
}
