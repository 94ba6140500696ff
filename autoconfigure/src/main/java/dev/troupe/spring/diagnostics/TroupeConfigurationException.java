package dev.troupe.spring.diagnostics;

import java.util.Objects;

/**
 * A Troupe misconfiguration found at startup: a bean or property the application must change.
 * {@link TroupeConfigurationFailureAnalyzer} turns it into Boot's failure report, with
 * {@link #description()} under "Description:" and {@link #action()} under "Action:".
 */
public class TroupeConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    /**
     * @param description what is wrong, naming the property or bean
     * @param action what to change
     */
    public TroupeConfigurationException(String description, String action) {
        this(description, action, null);
    }

    /**
     * @param description what is wrong, naming the property or bean
     * @param action what to change
     * @param cause the failure behind it, or null
     */
    public TroupeConfigurationException(String description, String action, Throwable cause) {
        super(Objects.requireNonNull(description, "description"), cause);
        this.description = description;
        this.action = Objects.requireNonNull(action, "action");
    }

    /** @return what is wrong, naming the property or bean */
    public String description() {
        return description;
    }

    /** @return what to change */
    public String action() {
        return action;
    }
}
