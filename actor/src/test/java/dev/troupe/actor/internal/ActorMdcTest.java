package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

import static org.assertj.core.api.Assertions.assertThat;

/** The turn's MDC: skipped without an adapter that keeps values; a turn off the dispatcher threads puts back what it found. */
class ActorMdcTest {

    @AfterEach
    void clean() {
        MDC.clear();
    }

    @Test
    void withTheNoOpAdapterTheMdcIsSkippedEntirely() {
        assertThat(ActorMdc.keepsValues(new NOPMDCAdapter())).isFalse();
        assertThat(ActorMdc.keepsValues(null)).isFalse();
        // the test class path has Logback, whose adapter keeps values
        assertThat(ActorMdc.keepsValues(MDC.getMDCAdapter())).isTrue();
        assertThat(ActorMdc.create("sys", false)).isNotNull();
    }

    @Test
    void aTurnOffTheDispatcherThreadsPutsBackTheEntriesOfTheTurnAroundIt() {
        final ActorMdc mdc = ActorMdc.create("sys", false);
        final ActorPath outer = ActorPath.root("sys").child("user").child("outer");
        final ActorPath inner = ActorPath.root("sys").child("user").child("inner");
        // an actor's turn on this thread (as if it were a dispatcher thread) ...
        final ActorMdc.Previous none = mdc.enterElsewhere(outer);
        assertThat(MDC.get(ActorMdc.PATH)).isEqualTo(outer.toString());
        // ... runs another actor's turn inline
        final ActorMdc.Previous before = mdc.enterElsewhere(inner);
        assertThat(MDC.get(ActorMdc.PATH)).isEqualTo(inner.toString());
        assertThat(MDC.get(ActorMdc.SYSTEM)).isEqualTo("sys");
        before.restore();
        assertThat(MDC.get(ActorMdc.PATH)).isEqualTo(outer.toString());
        none.restore();
        assertThat(MDC.get(ActorMdc.PATH)).isNull();
        assertThat(MDC.get(ActorMdc.SYSTEM)).isNull();
    }
}
