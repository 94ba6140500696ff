package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An actor system for a test: spawn actors, create probes, and shut it all down at the end.
 *
 * <pre>{@code
 * static final ActorTestKit testKit = ActorTestKit.create();
 * @AfterAll static void cleanup() { testKit.shutdownTestKit(); }
 * }</pre>
 *
 * <p>A test that already has a system (a {@code @SpringBootTest} with the context's
 * {@code ActorSystem} bean) wraps it with {@link #create(ActorSystem)}: the kit then spawns and
 * probes in that system, and its shutdown leaves the system to its owner.
 */
public final class ActorTestKit {

    private static final AtomicLong IDS = new AtomicLong();

    /**
     * The first pause between tries of {@link #awaitAssert}; it doubles up to {@link #MAX_PAUSE_NANOS}.
     * Short, so that a condition that holds only for a while (a counter at an exact value) is not missed.
     */
    private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(1).toNanos();
    private static final long MAX_PAUSE_NANOS = Duration.ofMillis(10).toNanos();

    private final ActorSystem system;
    /** Whether this kit made the system, and so terminates it on shutdown. */
    private final boolean ownsSystem;
    /** In a system the kit does not own: the top-level actors it spawned, stopped on shutdown. */
    private final ConcurrentLinkedQueue<ActorRef<?>> spawned = new ConcurrentLinkedQueue<>();

    private ActorTestKit(ActorSystem system, boolean ownsSystem) {
        this.system = system;
        this.ownsSystem = ownsSystem;
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
        return new ActorTestKit(ActorSystem.create(name, settings), true);
    }

    /**
     * A test kit over a system it does not own: {@link #shutdownTestKit()} leaves that system
     * running (its owner, a Spring context for instance, terminates it).
     *
     * @param existing a running system
     * @return a test kit spawning and probing in that system
     */
    public static ActorTestKit create(ActorSystem existing) {
        return new ActorTestKit(Objects.requireNonNull(existing, "existing"), false);
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
        return spawned(system.spawnAnonymous(behavior));
    }

    /**
     * @param behavior the behavior
     * @param name the name
     * @param <T> the message type
     * @return a top-level actor
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
        return spawned(system.spawn(behavior, name));
    }

    /**
     * @param behavior the behavior
     * @param name the name
     * @param props the props
     * @param <T> the message type
     * @return a top-level actor
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name, Props props) {
        return spawned(system.spawn(behavior, name, props));
    }

    private <T> ActorRef<T> spawned(ActorRef<T> ref) {
        if (!ownsSystem) {
            spawned.add(ref);
        }
        return ref;
    }

    /**
     * Stops a top-level actor and waits until it has stopped.
     *
     * @param ref the actor
     */
    public void stop(ActorRef<?> ref) {
        final TestProbe<Object> probe = createTestProbe();
        spawned.remove(ref);
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

    /**
     * Runs an assertion until it passes, for conditions no message announces (a meter reaching a
     * value, an actor being gone), as {@link TestProbe#awaitAssert(Duration, Runnable)} does; for
     * test code that has no probe at hand.
     *
     * @param max how long to keep trying
     * @param assertion throws (an {@link AssertionError} or any other exception) while the condition does not hold
     */
    public static void awaitAssert(Duration max, Runnable assertion) {
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(assertion, "assertion");
        final long deadline = System.nanoTime() + max.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            final Throwable failure;
            try {
                assertion.run();
                return;
            } catch (AssertionError | RuntimeException e) {
                failure = e;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("still failing after " + max + ": "
                    + (failure instanceof AssertionError ? failure.getMessage() : failure), failure);
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while awaiting an assertion", failure);
            }
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
    }

    /** @return whether this kit made its system and terminates it on shutdown (false for {@link #create(ActorSystem)}) */
    public boolean ownsSystem() {
        return ownsSystem;
    }

    /**
     * Terminates the system and waits up to 10 seconds; for a kit over a system it does not own,
     * stops the actors the kit spawned and leaves the system running.
     */
    public void shutdownTestKit() {
        shutdownTestKit(Duration.ofSeconds(10));
    }

    /**
     * Terminates the system, if this kit made it, and waits for it. A kit over a system it does
     * not own ({@link #create(ActorSystem)}) stops the top-level actors it spawned, waits until
     * they have stopped, and leaves the system running.
     *
     * @param timeout how long to wait
     */
    public void shutdownTestKit(Duration timeout) {
        if (!ownsSystem) {
            final TestProbe<Object> probe = createTestProbe();
            ActorRef<?> ref;
            while ((ref = spawned.poll()) != null) {
                try {
                    system.stop(ref);
                } catch (IllegalArgumentException alreadyGone) {
                    // it stopped by itself: the watch below answers at once
                }
                probe.expectTerminated(ref, timeout);
            }
            return;
        }
        try {
            system.terminate().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("actor system " + system.name() + " did not terminate within " + timeout, e);
        }
    }
}
