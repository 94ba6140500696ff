package dev.troupe.spring.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/** Reports an {@link InvalidTroupePropertyException} with the property's value and origin. */
class TroupePropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidTroupePropertyException> {

    private final Environment environment;

    TroupePropertyFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidTroupePropertyException cause) {
        return PropertyFailures.analysis(environment, cause.property(), cause.problem(), cause.action(), null, cause);
    }
}
