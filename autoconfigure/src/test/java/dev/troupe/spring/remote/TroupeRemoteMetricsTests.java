package dev.troupe.spring.remote;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behaviors;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Peer meters follow the transport's associations: bound when a peer appears, removed with its association. */
class TroupeRemoteMetricsTests {

    private static RemoteSettings settings() {
        return RemoteSettings.builder().bindHost("127.0.0.1").bindPort(0).secret("0123456789abcdef-test-secret")
            .heartbeatInterval(Duration.ofMillis(200)).idleTimeout(Duration.ofSeconds(5))
            .removeIdleAssociationAfter(Duration.ofMillis(500)).build();
    }

    @Test
    void metersOfAPeerWhoseAssociationWasRemovedAreRemoved() throws Exception {
        final ActorSystem a = ActorSystem.create("alpha");
        final ActorSystem b = ActorSystem.create("beta");
        final RemoteTransport ta = RemoteTransport.start(a, settings());
        final RemoteTransport tb = RemoteTransport.start(b, settings());
        try {
            final java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
            tb.publish(b.spawn(Behaviors.<String>receiveMessage(m -> {
                received.incrementAndGet();
                return Behaviors.same();
            }), "sink"), String.class);
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            final TroupeRemoteMetrics metrics = new TroupeRemoteMetrics(ta);
            metrics.bindTo(registry);
            ta.actorRef(tb.address() + "user/sink", String.class).tell("hello");
            final String peer = "beta@127.0.0.1:" + tb.address().port();
            await(() -> received.get() == 1);
            metrics.refresh();
            assertThat(registry.find("troupe.remote.messages").tag("peer", peer).meters()).isNotEmpty();

            tb.shutdown(Duration.ofMillis(200)); // CLOSE: alpha declares beta lost, then removes the association
            await(() -> ta.metrics().peers().stream().map(PeerMetrics::address).noneMatch(peer::equals));
            metrics.refresh();
            assertThat(registry.find("troupe.remote.messages").tag("peer", peer).meters()).isEmpty();
        } finally {
            ta.shutdown(Duration.ofMillis(200));
            tb.shutdown(Duration.ofMillis(200));
            a.terminate().toCompletableFuture().join();
            b.terminate().toCompletableFuture().join();
        }
    }

    @Test
    void theIoThreadsAllocationIsARowOfTheAllocationMeters() throws Exception {
        final ActorSystem a = ActorSystem.create("alpha");
        final ActorSystem b = ActorSystem.create("beta");
        final RemoteTransport ta = RemoteTransport.start(a, settings());
        final RemoteTransport tb = RemoteTransport.start(b, settings());
        try {
            final java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
            tb.publish(b.spawn(Behaviors.<String>receiveMessage(m -> {
                received.incrementAndGet();
                return Behaviors.same();
            }), "sink"), String.class);
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new TroupeRemoteMetrics(ta).bindTo(registry);
            final io.micrometer.core.instrument.FunctionCounter bytes = registry.get("troupe.allocation.bytes")
                .tags("system", "alpha", "behavior", "remote-io", "message", "all").functionCounter();
            final io.micrometer.core.instrument.FunctionCounter messages = registry.get("troupe.allocation.messages")
                .tags("system", "alpha", "behavior", "remote-io", "message", "all").functionCounter();
            final double bytesBefore = bytes.count();
            final dev.troupe.actor.ActorRef<String> sink = ta.actorRef(tb.address() + "user/sink", String.class);
            for (int i = 0; i < 100; i++) {
                sink.tell("hello");
            }
            await(() -> received.get() == 100);
            // the handshake and the first frames make the I/O threads allocate; every message sent counts
            assertThat(bytes.count()).isGreaterThan(bytesBefore);
            assertThat(bytes.count()).isEqualTo((double) ta.metrics().ioThreadsAllocatedBytes(), org.assertj.core.data.Offset.offset(1e6));
            assertThat(messages.count()).isGreaterThanOrEqualTo(100);
        } finally {
            ta.shutdown(Duration.ofMillis(200));
            tb.shutdown(Duration.ofMillis(200));
            a.terminate().toCompletableFuture().join();
            b.terminate().toCompletableFuture().join();
        }
    }

    private static void await(BooleanSupplier condition) {
        dev.troupe.testsupport.Await.until("condition", Duration.ofSeconds(20), condition);
    }
}
