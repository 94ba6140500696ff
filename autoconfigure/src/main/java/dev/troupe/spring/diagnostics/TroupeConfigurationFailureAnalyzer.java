package dev.troupe.spring.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link TroupeConfigurationException} as Boot's failure block. */
class TroupeConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<TroupeConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, TroupeConfigurationException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
