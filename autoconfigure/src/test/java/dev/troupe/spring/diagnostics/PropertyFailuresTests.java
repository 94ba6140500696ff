package dev.troupe.spring.diagnostics;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** The first line of a report: the value and its origin when the property is set, the default's failure when it is not. */
class PropertyFailuresTests {

    @Test
    void aSetPropertyShouldBeReportedWithItsValue() {
        final MockEnvironment environment = new MockEnvironment().withProperty("troupe.remote.bind-port", "25520");
        final FailureAnalysis analysis = PropertyFailures.analysis(environment, "troupe.remote.bind-port",
            "the port is in use", null, null, new IllegalStateException());
        assertThat(analysis.getDescription()).startsWith("Invalid value for the property 'troupe.remote.bind-port': '25520'");
    }

    @Test
    void aPropertyNotSetShouldBeReportedAsItsDefaultFailingNotAsAnInvalidValue() {
        final FailureAnalysis analysis = PropertyFailures.analysis(new MockEnvironment(), "troupe.remote.bind-port",
            "the port is in use", null, null, new IllegalStateException());
        assertThat(analysis.getDescription())
            .startsWith("The property 'troupe.remote.bind-port' is not set in the environment: its default")
            .contains("applies, and fails.", "Reason: the port is in use")
            .doesNotContain("valid value");
    }
}
