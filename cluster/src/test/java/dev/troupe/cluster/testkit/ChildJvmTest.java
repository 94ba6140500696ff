package dev.troupe.cluster.testkit;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The multi-JVM harness itself: child JVMs on their own loopback addresses, frozen, thawed and killed. */
class ChildJvmTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aChildOnItsLoopbackAddressAnswersStopsAnsweringWhileFrozenAndAgainWhenThawed() {
        try (ChildJvm node = ChildJvm.start("n0", EchoNodeMain.class, List.of(), ChildJvm.loopback(0))) {
            assertThat(node.awaitLine("READY", WAIT)).endsWith(" 127.0.0.2");
            node.send("ping 1");
            node.awaitLine("pong 1", WAIT);

            node.freeze();
            node.send("ping 2");
            node.expectNoLine(l -> l.startsWith("pong"), Duration.ofMillis(500)); // frozen: nothing may come in this window
            node.thaw();
            node.awaitLine("pong 2", WAIT);
        }
    }

    @Test
    void kill9EndsTheChildAtOnce() {
        final ChildJvm node = ChildJvm.start("n1", EchoNodeMain.class, List.of(), ChildJvm.loopback(1));
        node.awaitLine("READY", WAIT);
        node.kill9();
        assertThat(node.isAlive()).isFalse();
        assertThatThrownBy(() -> node.awaitLine("pong", Duration.ofMillis(200))).isInstanceOf(AssertionError.class);
        node.close();
    }

    @Test
    void nodesGetDistinctLoopbackAddressesWithFreePorts() {
        assertThat(ChildJvm.loopback(0)).isEqualTo("127.0.0.2");
        assertThat(ChildJvm.loopback(3)).isEqualTo("127.0.0.5");
        assertThat(ChildJvm.freePort(ChildJvm.loopback(3))).isPositive();
        assertThatThrownBy(() -> ChildJvm.freePort("192.0.2.1")).hasMessageContaining("loopback");
    }
}
