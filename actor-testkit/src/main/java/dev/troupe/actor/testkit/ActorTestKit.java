package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An actor system for a test: spawn actors, create probes, and shut it all down at the end.
 *
 * <pre>{@code
 * static final ActorTestKit testKit = ActorTestKit.create();
 * @AfterAll static void cleanup() { testKit.shutdownTestKit(); }
 * }</pre>
 */
public final class ActorTestKit {

    private static final AtomicLong IDS = new AtomicLong();

    private final ActorSystem system;

    private ActorTestKit(ActorSystem system) {
        this.system = system;
    }

    /** @return a test kit with a fresh system of daemon threads */
    public static ActorTestKit create() {
        return create("test-" + IDS.incrementAndGet());
    }

    /**
     * @param name the system's name
     * @return a test kit with a fresh system of daemon threads
     */
    public static ActorTestKit create(String name) {
        return create(name, ActorSystemSettings.builder().daemonThreads(true).build());
    }

    /**
     * @param name the system's name
     * @param settings the system's settings
     * @return a test kit
     */
    public static ActorTestKit create(String name, ActorSystemSettings settings) {
        return new ActorTestKit(ActorSystem.create(name, settings));
    }

    /** @return the system */
    public ActorSystem system() {
        return system;
    }

    /**
     * @param behavior the behavior
     * @param <T> the message type
     * @return a top-level actor with a generated name
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior) {
        return system.spawnAnonymous(behavior);
    }

    /**
     * @param behavior the behavior
     * @param name the name
     * @param <T> the message type
     * @return a top-level actor
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
        return system.spawn(behavior, name);
    }

    /**
     * @param behavior the behavior
     * @param name the name
     * @param props the props
     * @param <T> the message type
     * @return a top-level actor
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name, Props props) {
        return system.spawn(behavior, name, props);
    }

    /**
     * Stops a top-level actor and waits until it has stopped.
     *
     * @param ref the actor
     */
    public void stop(ActorRef<?> ref) {
        final TestProbe<Object> probe = createTestProbe();
        system.stop(ref);
        probe.expectTerminated(ref, TestProbe.DEFAULT_TIMEOUT);
    }

    /**
     * @param <T> the message type
     * @return a new probe
     */
    public <T> TestProbe<T> createTestProbe() {
        return TestProbe.create(system);
    }

    /**
     * @param type the class every message the probe receives must have (checked by its expectations)
     * @param <T> the message type
     * @return a new probe
     */
    public <T> TestProbe<T> createTestProbe(Class<T> type) {
        return TestProbe.create(type, system);
    }

    /** Terminates the system and waits up to 10 seconds. */
    public void shutdownTestKit() {
        shutdownTestKit(Duration.ofSeconds(10));
    }

    /**
     * @param timeout how long to wait for termination
     */
    public void shutdownTestKit(Duration timeout) {
        try {
            system.terminate().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("actor system " + system.name() + " did not terminate within " + timeout, e);
        }
    }
}
