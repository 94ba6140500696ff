package dev.troupe.remote.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class PhiAccrualFailureDetectorTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private static PhiAccrualFailureDetector detector() {
        // threshold 10, interval 200 ms, acceptable pause 1 s, min std dev 100 ms
        return new PhiAccrualFailureDetector(10, 200, 100 * MS, 1000 * MS, 200 * MS);
    }

    @Test
    void regularHeartbeatsKeepPhiLowAndSilenceRaisesItPastTheThreshold() {
        final PhiAccrualFailureDetector d = detector();
        assertThat(d.isMonitoring()).isFalse();
        assertThat(d.phi(0)).isZero();
        long t = 0;
        for (int i = 0; i < 50; i++) {
            d.heartbeat(t);
            t += 200 * MS;
        }
        final long last = t - 200 * MS;
        assertThat(d.phi(last + 200 * MS)).isLessThan(1);
        assertThat(d.isAvailable(last + 900 * MS)).isTrue(); // within the acceptable pause
        double previous = 0;
        for (long after = 1000; after <= 3000; after += 250) {
            final double phi = d.phi(last + after * MS);
            assertThat(phi).isGreaterThanOrEqualTo(previous); // monotonic in the silence
            previous = phi;
        }
        assertThat(d.isAvailable(last + 2500 * MS)).isFalse();
        assertThat(d.lastPhi()).isGreaterThan(10);
    }

    @Test
    void startWithoutHeartbeatsDeclaresANeverReachedNodeLostWithinTheSameBound() {
        final PhiAccrualFailureDetector d = detector();
        d.start(0);
        assertThat(d.isAvailable(500 * MS)).isTrue();
        assertThat(d.isAvailable(3000 * MS)).isFalse();
        d.reset();
        assertThat(d.isMonitoring()).isFalse();
        assertThat(d.isAvailable(10_000 * MS)).isTrue();
    }

    @Test
    void phiFunctionMatchesTheNormalDistribution() {
        // at the mean, P(later) = 0.5: phi = -log10(0.5) ~ 0.30
        assertThat(PhiAccrualFailureDetector.phi(1000, 1000, 100)).isCloseTo(0.301, org.assertj.core.data.Offset.offset(0.01));
        // two standard deviations late: P ~ 0.0228, phi ~ 1.64
        assertThat(PhiAccrualFailureDetector.phi(1200, 1000, 100)).isCloseTo(1.64, org.assertj.core.data.Offset.offset(0.05));
    }
}
