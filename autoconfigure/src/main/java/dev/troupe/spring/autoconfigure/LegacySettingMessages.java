package dev.troupe.spring.autoconfigure;

import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names the property behind a settings builder's refusal while the builders still throw a plain
 * {@code IllegalArgumentException} instead of {@code InvalidSettingException}: each method knows
 * which properties its call took and picks the one the message is about. Once every builder
 * throws {@code InvalidSettingException} (which the callers let through untouched), nothing
 * reaches these methods.
 */
final class LegacySettingMessages {

    /** The remote builder's messages start with the property's name. */
    private static final Pattern REMOTE = Pattern.compile("^(troupe\\.remote\\.[a-z0-9.-]*[a-z0-9])[:\\s]+(.*)$", Pattern.DOTALL);

    private LegacySettingMessages() {
    }

    static RuntimeException dispatcher(String prefix, int idleSpins, IllegalArgumentException e) {
        final String m = String.valueOf(e.getMessage());
        final String property;
        if (m.contains("threads")) {
            property = prefix + ".threads";
        } else if (m.contains("throughput")) {
            property = prefix + ".throughput";
        } else if (m.contains("maxPark")) {
            property = prefix + ".max-park";
        } else if (m.contains("idle spins")) {
            property = prefix + (idleSpins < 0 ? ".idle-spins" : ".idle-yields");
        } else {
            property = prefix;
        }
        return new InvalidTroupePropertyException(property, problem(m), null, e);
    }

    static RuntimeException mailbox(IllegalArgumentException e) {
        final String m = String.valueOf(e.getMessage());
        return new InvalidTroupePropertyException(m.contains("initial capacity")
            ? "troupe.default-mailbox.initial-capacity" : "troupe.default-mailbox.capacity", m, null, e);
    }

    static RuntimeException timer(IllegalArgumentException e) {
        final String m = String.valueOf(e.getMessage());
        return new InvalidTroupePropertyException(m.contains("ticks per wheel") ? "troupe.timer.ticks-per-wheel" : "troupe.timer.tick",
            m, null, e);
    }

    static RuntimeException deadLetters(int sampleSize, IllegalArgumentException e) {
        return new InvalidTroupePropertyException(sampleSize < 0 ? "troupe.dead-letters.sample-size" : "troupe.dead-letters.log-limit",
            String.valueOf(e.getMessage()), null, e);
    }

    static RuntimeException remote(IllegalArgumentException e) {
        final Matcher m = REMOTE.matcher(String.valueOf(e.getMessage()));
        return m.matches() ? new InvalidTroupePropertyException(m.group(1), m.group(2), null, e) : e;
    }

    /** {@code dispatcher 'io': threads must be positive: 0} to {@code threads must be positive: 0}. */
    private static String problem(String message) {
        final int i = message.indexOf("': ");
        return i >= 0 ? message.substring(i + 3) : message;
    }
}
