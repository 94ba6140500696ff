package dev.troupe.spring.diagnostics;

import dev.troupe.remote.MissingJvmOptionException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Reports the remote transport's refusal to start in a JVM that lacks
 * {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED} ({@link MissingJvmOptionException})
 * as Boot's failure block: the Description says what is missing, the Action gives the option and
 * the snippets that set it (manifest, surefire/failsafe, {@code spring-boot:run}, Gradle, a
 * Dockerfile). Matched by class name, so the analyzer loads in applications without
 * {@code troupe-remote} (where it never matches).
 */
class MissingJvmOptionFailureAnalyzer implements FailureAnalyzer {

    private static final String EXCEPTION = "dev.troupe.remote.MissingJvmOptionException";

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 64; t = t.getCause(), depth++) {
            if (t.getClass().getName().equals(EXCEPTION)) {
                return Remote.analysis(t);
            }
        }
        return null;
    }

    /** Touches the remote module's class only once one of its exceptions was seen. */
    private static final class Remote {
        static FailureAnalysis analysis(Throwable t) {
            final MissingJvmOptionException e = (MissingJvmOptionException) t;
            return new FailureAnalysis(e.description(), e.action(), e);
        }
    }
}
