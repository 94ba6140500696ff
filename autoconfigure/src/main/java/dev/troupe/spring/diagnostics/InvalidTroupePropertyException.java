package dev.troupe.spring.diagnostics;

import java.util.Objects;

/**
 * A {@code troupe.*} property whose value Troupe refuses. {@link TroupePropertyFailureAnalyzer}
 * reports it with the value and where it was set (file and line, command line, ...).
 */
public class InvalidTroupePropertyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String problem;
    private final String action;

    /**
     * @param property the full property name, such as {@code troupe.shutdown.timeout}
     * @param problem what is wrong with its value
     * @param action what to change, or null for the property's own advice (see {@link TroupeSettingNames#advice})
     */
    public InvalidTroupePropertyException(String property, String problem, String action) {
        this(property, problem, action, null);
    }

    /**
     * @param property the full property name
     * @param problem what is wrong with its value
     * @param action what to change, or null for the property's own advice
     * @param cause the failure behind it, or null
     */
    public InvalidTroupePropertyException(String property, String problem, String action, Throwable cause) {
        super(property + ": " + problem, cause);
        this.property = Objects.requireNonNull(property, "property");
        this.problem = Objects.requireNonNull(problem, "problem");
        this.action = action;
    }

    /** @return the full property name */
    public String property() {
        return property;
    }

    /** @return what is wrong with its value */
    public String problem() {
        return problem;
    }

    /** @return what to change, or null */
    public String action() {
        return action;
    }
}
