package dev.troupe.spring.autoconfigure;

import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names the property behind a refusal of the remote settings builder while it still throws a
 * plain {@code IllegalArgumentException} (whose message starts with the property) instead of
 * {@code InvalidSettingException}, as the actor settings do. Once it throws
 * {@code InvalidSettingException} (which the caller lets through untouched), nothing reaches this.
 */
final class LegacySettingMessages {

    /** The remote builder's messages start with the property's name. */
    private static final Pattern REMOTE = Pattern.compile("^(troupe\\.remote\\.[a-z0-9.-]*[a-z0-9])[:\\s]+(.*)$", Pattern.DOTALL);

    private LegacySettingMessages() {
    }

    static RuntimeException remote(IllegalArgumentException e) {
        final Matcher m = REMOTE.matcher(String.valueOf(e.getMessage()));
        return m.matches() ? new InvalidTroupePropertyException(m.group(1), m.group(2), null, e) : e;
    }
}
