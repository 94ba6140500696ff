package dev.troupe.spring.diagnostics;

import dev.troupe.actor.InvalidSettingException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports a setting the runtime refused ({@link InvalidSettingException}, thrown by the settings
 * builders, which validate every value once) under the {@code troupe.*} property that sets it.
 */
class InvalidSettingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSettingException> {

    private final Environment environment;

    InvalidSettingFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingException cause) {
        final String property = TroupeSettingNames.property(cause.setting(), cause.element());
        if (property != null && TroupePropertyKeys.troupe().isKnownOrGroup(property)) {
            return PropertyFailures.analysis(environment, property, cause.problem(), null, cause.setting(), cause);
        }
        final String where = cause.element() == null ? cause.setting() : cause.setting() + " (" + cause.element() + ")";
        final String advice = TroupeSettingNames.settingAdvice(cause.setting());
        return new FailureAnalysis("Invalid Troupe setting " + where + ": " + cause.problem(),
            advice != null ? advice : "Change the value given to " + cause.setting() + " where the application builds its settings"
                + " (an ActorSystemCustomizer, an ActorSystemSettings or RemoteSettings bean, or code that calls the builder).", cause);
    }
}
