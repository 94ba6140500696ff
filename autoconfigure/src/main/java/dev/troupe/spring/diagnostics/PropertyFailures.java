package dev.troupe.spring.diagnostics;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

import java.util.Locale;

/** Builds the failure report of a refused {@code troupe.*} value: the property, its value and origin, the reason, the fix. */
final class PropertyFailures {

    private PropertyFailures() {
    }

    /**
     * @param environment the application's environment, or null
     * @param property the full property name
     * @param problem what is wrong with the value
     * @param action what to change, or null for the property's advice or a generic one
     * @param setting the library setting that refused it (such as {@code DispatcherSettings.threads}), or null
     * @param cause the failure
     * @return the analysis
     */
    static FailureAnalysis analysis(Environment environment, String property, String problem, String action, String setting,
                                    Throwable cause) {
        final StringBuilder d = new StringBuilder();
        final ConfigurationProperty configured = find(environment, property);
        if (configured != null) {
            d.append("Invalid value for the property '").append(property).append("': ")
                .append(display(property, configured.getValue()));
            if (configured.getOrigin() != null) {
                d.append("\n    Origin: ").append(configured.getOrigin());
            }
        } else {
            // not set: the default (or a value set in code) was refused, or cannot be used on this machine
            d.append("The property '").append(property).append("' is not set in the environment: its default (or a value")
                .append(" set in code by an ActorSystemCustomizer or a settings bean) applies, and fails.");
        }
        d.append("\n    Reason: ").append(problem);
        if (setting != null) {
            d.append("\n    Refused by: ").append(setting);
        }
        String a = action != null ? action : TroupeSettingNames.advice(property);
        if (a == null) {
            a = "Change '" + property + "' in the application's configuration so that the value is accepted (" + problem + ").";
        }
        return new FailureAnalysis(d.toString(), a, cause);
    }

    /** @return the property as the environment has it (relaxed names and environment variables included), or null */
    static ConfigurationProperty find(Environment environment, String property) {
        if (environment == null) {
            return null;
        }
        final ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            final ConfigurationProperty p = source.getConfigurationProperty(name);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    /** Values of secrets are never printed. */
    static String display(String property, Object value) {
        final String last = property.substring(property.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        if (last.contains("secret") || last.contains("password") || last.contains("token")) {
            final int length = value == null ? 0 : value.toString().length();
            return "(hidden, " + length + " characters)";
        }
        return "'" + value + "'";
    }
}
