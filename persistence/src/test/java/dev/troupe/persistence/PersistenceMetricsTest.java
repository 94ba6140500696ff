package dev.troupe.persistence;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PersistenceMetricsTest {

    @Test
    void slowestRecoveriesKeepsTheTenSlowestSlowestFirst() {
        final PersistenceMetrics m = new PersistenceMetrics(StoreMetrics.NONE);
        // 25 recoveries in a scrambled order of durations 1..25
        for (int i = 0; i < 25; i++) {
            final long nanos = (i * 7L) % 25 + 1;
            m.recordRecovery("Sku|" + nanos, nanos, nanos * 2);
        }
        final List<PersistenceMetrics.Recovery> slowest = m.slowestRecoveries();
        assertThat(slowest).extracting(PersistenceMetrics.Recovery::nanos)
            .containsExactly(25L, 24L, 23L, 22L, 21L, 20L, 19L, 18L, 17L, 16L);
        assertThat(slowest.get(0)).isEqualTo(new PersistenceMetrics.Recovery("Sku|25", 25, 50));
        assertThat(m.recoveries()).isEqualTo(25);
        assertThat(m.recoveryNanos()).isEqualTo(25 * 26 / 2);
        assertThat(m.eventsRecovered()).isEqualTo(25 * 26);
        // a faster one than every kept one changes nothing
        m.recordRecovery("Sku|fast", 3, 0);
        assertThat(m.slowestRecoveries()).isEqualTo(slowest);
    }
}
