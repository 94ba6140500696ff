package dev.troupe.remote;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.remote.jackson.JacksonSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Shared set-up for transport tests: nodes on 127.0.0.1 with free ports, short timers. */
public final class RemoteTestKit implements AutoCloseable {

    public static final String SECRET = "test-secret-0123456789abcdef";

    private final List<ActorSystem> systems = new ArrayList<>();
    private final List<RemoteTransport> transports = new ArrayList<>();

    public static SerializerRegistry serializers() {
        return SerializerRegistry.builder()
            .register(Ping.class, Ping.SERIALIZER)
            .register(Ping.Pong.class, Ping.PONG_SERIALIZER)
            .fallback(JacksonSerializer.builder().allowPackage("dev.troupe.remote.json").build())
            .build();
    }

    public static RemoteSettings.Builder settings() {
        return RemoteSettings.builder()
            .bindHost("127.0.0.1")
            .bindPort(0)
            .secret(SECRET)
            .heartbeatInterval(Duration.ofMillis(200))
            .acceptableHeartbeatPause(Duration.ofMillis(1500))
            .idleTimeout(Duration.ofSeconds(5))
            .handshakeTimeout(Duration.ofSeconds(2))
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .systemMessageResendInterval(Duration.ofMillis(300))
            .serializers(serializers());
    }

    public RemoteTransport node(String name) {
        return node(name, settings());
    }

    public RemoteTransport node(String name, RemoteSettings.Builder settings) {
        final ActorSystem system = ActorSystem.create(name);
        systems.add(system);
        final RemoteTransport t = RemoteTransport.start(system, settings.build());
        transports.add(t);
        return t;
    }

    /** Starts a transport for a system the caller prepared (actors spawned before it listens); closed with the kit. */
    public RemoteTransport node(ActorSystem system, RemoteSettings.Builder settings) {
        systems.add(system);
        final RemoteTransport t = RemoteTransport.start(system, settings.build());
        transports.add(t);
        return t;
    }

    /** An actor that answers every Ping with a Pong of the same seq. */
    public static Behavior<Ping> echo() {
        return Behaviors.receiveMessage(p -> {
            p.replyTo().tell(new Ping.Pong(p.seq()));
            return Behaviors.same();
        });
    }

    /** Waits for a condition: the test kit's awaitAssert, with the condition named in the failure. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        ActorTestKit.awaitAssert(timeout, () -> assertThat(condition.getAsBoolean()).as(what).isTrue());
    }

    @Override
    public void close() {
        for (RemoteTransport t : transports) {
            t.shutdown(Duration.ofMillis(200));
        }
        for (ActorSystem s : systems) {
            s.terminate().toCompletableFuture().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join();
        }
    }
}
