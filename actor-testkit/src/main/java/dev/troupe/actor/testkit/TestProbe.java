package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.SystemMessageHandler;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ref whose messages a test inspects: pass {@link #ref()} to actors, then expect what
 * they send. Every expectation waits at most its timeout (3 seconds by default) and
 * fails with an {@link AssertionError} that says what arrived instead. A probe made for a
 * message class ({@link #create(Class, ActorSystem)}, {@code ActorTestKit.createTestProbe(Class)})
 * also fails an expectation when what arrived is not of that class (a sender that cast its way
 * past the compiler).
 *
 * @param <T> the message type
 */
public final class TestProbe<T> {

    private static final AtomicLong IDS = new AtomicLong();
    /** The default time an expectation waits. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);
    /** How long {@link #expectNoMessage()} waits. */
    public static final Duration DEFAULT_NO_MESSAGE = Duration.ofMillis(100);

    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final ProbeRef ref;
    private final ActorSystem system;
    /** The class every message must have, or null for any. */
    private final Class<T> messageType;

    TestProbe(ActorSystem system, String name, Class<T> messageType) {
        this.system = system;
        this.messageType = messageType;
        this.ref = new ProbeRef(ActorPath.root(system.name()).child("testProbe").child(
            name == null ? "probe-" + IDS.incrementAndGet() : name));
    }

    /**
     * @param system the system the probe's watches go through
     * @param <T> the message type
     * @return a new probe
     */
    public static <T> TestProbe<T> create(ActorSystem system) {
        return new TestProbe<>(Objects.requireNonNull(system, "system"), null, null);
    }

    /**
     * @param messageType the class every message the probe receives must have
     * @param system the system the probe's watches go through
     * @param <T> the message type
     * @return a new probe that checks the class of what it receives
     */
    public static <T> TestProbe<T> create(Class<T> messageType, ActorSystem system) {
        return new TestProbe<>(Objects.requireNonNull(system, "system"), null, Objects.requireNonNull(messageType, "messageType"));
    }

    /** @return the class every message must have, or null if the probe takes any */
    public Class<T> messageType() {
        return messageType;
    }

    /** @return the ref to hand to actors */
    public ActorRef<T> ref() {
        return ref;
    }

    /**
     * @param expected the message expected next, compared with equals
     * @return the message
     */
    public T expectMessage(T expected) {
        return expectMessage(DEFAULT_TIMEOUT, expected);
    }

    /**
     * @param timeout how long to wait
     * @param expected the message expected next
     * @return the message
     */
    public T expectMessage(Duration timeout, T expected) {
        final T actual = receiveMessage(timeout);
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError("expected message " + expected + " but received " + actual);
        }
        return actual;
    }

    /**
     * @param type the class expected
     * @param <C> the class
     * @return the message
     */
    public <C extends T> C expectMessageClass(Class<C> type) {
        return expectMessageClass(type, DEFAULT_TIMEOUT);
    }

    /**
     * @param type the class expected
     * @param timeout how long to wait
     * @param <C> the class
     * @return the message
     */
    public <C extends T> C expectMessageClass(Class<C> type, Duration timeout) {
        final T actual = receiveMessage(timeout);
        if (!type.isInstance(actual)) {
            throw new AssertionError("expected a message of class " + type.getName() + " but received " + actual
                + " (" + actual.getClass().getName() + ")");
        }
        return type.cast(actual);
    }

    /** Asserts nothing arrives for 100 ms. */
    public void expectNoMessage() {
        expectNoMessage(DEFAULT_NO_MESSAGE);
    }

    /**
     * @param duration how long nothing must arrive
     */
    public void expectNoMessage(Duration duration) {
        final Object m = poll(duration);
        if (m != null) {
            throw new AssertionError("expected no message within " + duration + " but received " + m);
        }
    }

    /**
     * @return the next message, within the default timeout
     */
    public T receiveMessage() {
        return receiveMessage(DEFAULT_TIMEOUT);
    }

    /**
     * @param timeout how long to wait
     * @return the next message
     */
    @SuppressWarnings("unchecked")
    public T receiveMessage(Duration timeout) {
        final Object m = poll(timeout);
        if (m == null) {
            throw new AssertionError("timeout (" + timeout + ") while waiting for a message on " + ref.path());
        }
        if (m instanceof Terminated) {
            throw new AssertionError("expected a message but received " + m);
        }
        if (messageType != null && !messageType.isInstance(m)) {
            throw new AssertionError("probe " + ref.path() + " for messages of class " + messageType.getName()
                + " received a " + m.getClass().getName() + ": " + m);
        }
        return (T) m;
    }

    /**
     * @param n how many
     * @return the next n messages
     */
    public List<T> receiveMessages(int n) {
        return receiveMessages(n, DEFAULT_TIMEOUT);
    }

    /**
     * @param n how many
     * @param timeout the total time to wait for all of them
     * @return the next n messages
     */
    public List<T> receiveMessages(int n, Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("timeout (" + timeout + ") after " + i + " of " + n + " messages: " + out);
            }
            out.add(receiveMessage(Duration.ofNanos(left)));
        }
        return out;
    }

    /**
     * Watches an actor and waits for it to stop.
     *
     * @param actor the actor
     */
    public void expectTerminated(ActorRef<?> actor) {
        expectTerminated(actor, DEFAULT_TIMEOUT);
    }

    /**
     * @param actor the actor
     * @param timeout how long to wait
     */
    public void expectTerminated(ActorRef<?> actor, Duration timeout) {
        final InternalActorRef<?> target = InternalActorRef.of(actor);
        target.sendSystem(new Watch(target, ref));
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            final long left = deadline - System.nanoTime();
            final Object m = left <= 0 ? null : poll(Duration.ofNanos(left));
            if (m == null) {
                throw new AssertionError("timeout (" + timeout + ") while waiting for " + actor.path() + " to terminate");
            }
            if (m instanceof Terminated && ((Terminated) m).ref().equals(actor)) {
                return;
            }
            if (!(m instanceof Terminated)) {
                throw new AssertionError("expected Terminated(" + actor.path() + ") but received " + m);
            }
        }
    }

    /**
     * Runs an assertion until it passes, for conditions no message announces (a counter
     * reaching a value, an actor being gone): retried while it throws, every few milliseconds at
     * first and then every 10 ms, until {@code max} has passed; then its last failure is
     * thrown.
     *
     * @param max how long to keep trying
     * @param assertion throws (an {@link AssertionError} or any other exception) while the condition does not hold
     */
    public void awaitAssert(Duration max, Runnable assertion) {
        ActorTestKit.awaitAssert(max, assertion);
    }

    /**
     * {@link #awaitAssert(Duration, Runnable)} for up to {@link #DEFAULT_TIMEOUT}.
     *
     * @param assertion throws while the condition does not hold
     */
    public void awaitAssert(Runnable assertion) {
        ActorTestKit.awaitAssert(DEFAULT_TIMEOUT, assertion);
    }

    private Object poll(Duration timeout) {
        try {
            return queue.poll(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** @return the system */
    public ActorSystem system() {
        return system;
    }

    private final class ProbeRef extends StubRef<T> implements SystemMessageHandler {
        ProbeRef(ActorPath path) {
            super("TestProbe", path, system);
        }

        @Override
        public void tell(T message) {
            queue.add(Objects.requireNonNull(message, "message"));
        }

        /** A probe is watchable: a watched actor's death arrives as a {@link Terminated}. */
        @Override
        public void sendSystem(SystemMessage message) {
            message.dispatch(this);
        }

        @Override
        @SuppressWarnings("unchecked")
        public void onDeathWatchNotification(DeathWatchNotification notification) {
            queue.add(new Terminated((ActorRef<Void>) notification.actor()));
        }

        @Override
        public void onWatch(Watch watch) {
            // nobody watches a probe
        }

        @Override
        public void onUnwatch(Unwatch unwatch) {
        }
    }
}
