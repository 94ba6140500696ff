package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeathPactException;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Signal;
import dev.troupe.actor.StashBuffer;
import dev.troupe.actor.Terminated;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.actor.spi.BehaviorDriver;
import dev.troupe.actor.spi.BehaviorHost;
import org.slf4j.Logger;

import java.util.function.Function;

/**
 * Runs an actor's behavior: hands it messages and signals and works out the behavior that
 * comes next. There is one path for that, {@link #next}, whatever the input was (a message
 * from the mailbox, a signal, a message taken from a stash): the markers
 * ({@code same}, {@code unhandled}, {@code stopped}) and the deferred and supervised
 * behaviors are resolved there and nowhere else.
 *
 * <p>The runtime's actors drive it through {@link #receive} and {@link #signal} (their
 * {@link ActorContextImpl} is the host); the SPI's {@link BehaviorDriver} face
 * ({@link #interpretMessage}, {@link #interpretSignal}) drives the same code on the caller's
 * thread for another host, the test kit's {@code BehaviorTestKit}: both faces share the
 * dispatch to the behavior and the resolution of what it returned.
 *
 * <p>Actor thread only. On the message path, a handler that returns {@code same()} or the
 * behavior itself costs two reference compares and allocates nothing.
 *
 * <p>An actor's {@link ActorLifecycle} extends this class: for a runtime actor the interpreter
 * and the lifecycle are two rooms of the same actor-thread state, kept in one object so that an
 * idle actor pays for one object header instead of two (fields layered through a class
 * hierarchy, as JCTools and Agrona do). The test kit's driver is a plain instance.
 */
class BehaviorInterpreter<T> implements BehaviorDriver<T> {

    private static final int MAX_NESTING = 1000;

    /** For a runtime actor, its {@link ActorContextImpl}. */
    final BehaviorHost<T> host;
    /** The host's context, read once: handed to the behavior with every message. */
    private final ActorContext<T> context;
    private final Behavior<T> initial;
    /** The current behavior; null until the actor started. Never a marker. */
    private Behavior<T> behavior;
    /** Created when the actor first starts a supervised behavior. */
    private Supervision supervision;
    /** Set by {@code Behaviors.logMessages} until the actor restarts; one field read per message. */
    private boolean logMessages;
    /** Set when the behavior stopped (written on the stop path only). */
    private boolean stopped;

    BehaviorInterpreter(BehaviorHost<T> host, Behavior<T> initial) {
        this.host = host;
        this.context = host.context();
        this.initial = initial;
    }

    // =====================================================================================
    // Inputs
    // =====================================================================================

    /**
     * Processes one message with the current behavior.
     *
     * @param msg the message
     * @return whether the actor is to stop
     * @throws Exception the behavior's failure, for supervision
     */
    boolean receive(T msg) throws Exception {
        final Behavior<T> b = behavior;
        return proceed(b, handle(b, msg), msg, null);
    }

    /**
     * Processes a signal with the current behavior. An unhandled {@link Terminated} fails the
     * actor with a {@link DeathPactException}.
     *
     * @param signal the signal
     * @param about the actor the signal is about, for the death pact
     * @return whether the actor is to stop
     * @throws Exception the behavior's failure, for supervision
     */
    boolean signal(Signal signal, ActorRef<?> about) throws Exception {
        final Behavior<T> b = behavior;
        return proceed(b, handleSignal(b, signal), signal, about);
    }

    // ---- the same, as the SPI's BehaviorDriver: returns what the handler returned ----

    @Override
    public Behavior<T> interpretMessage(T message) throws Exception {
        checkAlive();
        final Behavior<T> b = behavior;
        final Behavior<T> next = handle(b, message);
        proceed(b, next, message, null);
        return next;
    }

    @Override
    public Behavior<T> interpretSignal(Signal signal) throws Exception {
        checkAlive();
        final Behavior<T> b = behavior;
        final Behavior<T> next = handleSignal(b, signal);
        proceed(b, next, signal, signal instanceof Terminated ? ((Terminated) signal).ref() : null);
        return next;
    }

    @Override
    public void postStop() {
        signalQuietly(PostStop.instance());
    }

    @Override
    public boolean isAlive() {
        return !stopped;
    }

    @Override
    public Behavior<T> currentBehavior() {
        return behavior;
    }

    private void checkAlive() {
        if (behavior == null) {
            throw new IllegalStateException("the behavior has not started: call start() first");
        }
        if (stopped) {
            throw new IllegalStateException("the behavior has stopped");
        }
    }

    /** Hands a message to a behavior: the one dispatch of messages, for the actor's and the stash's. */
    private Behavior<T> handle(Behavior<T> b, T msg) throws Exception {
        if (logMessages) {
            logMessage(msg);
        }
        return b instanceof ExtensibleBehavior ? ((ExtensibleBehavior<T>) b).receive(context, msg) : inert(b);
    }

    private Behavior<T> handleSignal(Behavior<T> b, Signal signal) throws Exception {
        if (logMessages) {
            logSignal(signal);
        }
        return b instanceof ExtensibleBehavior ? ((ExtensibleBehavior<T>) b).receiveSignal(context, signal) : inert(b);
    }

    /** @return whether the behavior stopped; same() or the behavior itself costs two compares */
    private boolean proceed(Behavior<T> b, Behavior<T> next, Object input, ActorRef<?> about) {
        if (next == b || next == SpecialBehavior.SAME) {
            return false;
        }
        return become(next(b, next, input, about));
    }

    /**
     * Processes one stashed message with {@code current} on behalf of {@code unstashAll}; the
     * actor's own behavior is left alone (the handler that unstashes returns the result).
     *
     * @param current the behavior to process with
     * @param msg the message
     * @return the behavior to go on with ({@code stopped()} if the actor is to stop)
     */
    Behavior<T> unstashed(Behavior<T> current, T msg) throws Exception {
        final Behavior<T> next = handle(current, msg);
        if (next == current || next == SpecialBehavior.SAME) {
            return current;
        }
        return next(current, next, msg, null);
    }

    /**
     * Delivers a signal whose result does not matter ({@code PreRestart}, {@code PostStop});
     * a failure is logged, not supervised.
     *
     * @param signal the signal
     */
    void signalQuietly(Signal signal) {
        if (logMessages) {
            logSignal(signal);
        }
        final Behavior<T> b = behavior;
        if (b instanceof ExtensibleBehavior) {
            try {
                ((ExtensibleBehavior<T>) b).receiveSignal(context, signal);
            } catch (Throwable t) {
                System.getLogger(ActorCell.class.getName())
                    .log(System.Logger.Level.ERROR, "actor " + context.self().path() + " failed handling " + signal, t);
            }
        }
    }

    /**
     * Starts (or restarts) from the initial behavior, running its setup.
     *
     * @return whether the actor is to stop at once
     */
    @Override
    public boolean start() {
        logMessages = false;
        stopped = false;
        final Behavior<T> started = unwrap(initial);
        if (started == SpecialBehavior.SAME || started == SpecialBehavior.UNHANDLED) {
            throw new IllegalStateException("the initial behavior of " + context.self().path() + " must not be same() or unhandled()");
        }
        if (started == SpecialBehavior.STOPPED) {
            behavior = SpecialBehavior.<T>empty();
            stopped = true;
            return true;
        }
        behavior = started;
        return false;
    }

    // =====================================================================================
    // The next behavior
    // =====================================================================================

    /** What a behavior that is not extensible does with any input: ignore drops it, the rest leave it unhandled. */
    @SuppressWarnings("unchecked")
    private static <T> Behavior<T> inert(Behavior<T> b) {
        return b == SpecialBehavior.IGNORE ? (Behavior<T>) SpecialBehavior.SAME : (Behavior<T>) SpecialBehavior.UNHANDLED;
    }

    /**
     * The one place that resolves what a handler returned (anything but {@code same()} or the
     * current behavior, which the callers test inline).
     *
     * @param current the behavior that handled the input
     * @param next what it returned
     * @param input the message or signal, for dead letters and errors
     * @param about for a signal, the actor it is about; null for a message
     * @return the behavior to go on with: {@code current}, a new behavior, or {@code stopped()}
     */
    private Behavior<T> next(Behavior<T> current, Behavior<T> next, Object input, ActorRef<?> about) {
        if (next == null) {
            throw new IllegalStateException("behavior " + current + " returned null for " + input.getClass().getName()
                + "; return Behaviors.same() to keep the behavior");
        }
        if (next == SpecialBehavior.UNHANDLED) {
            if (!(input instanceof Signal)) {
                host.unhandled(input);
            } else if (input instanceof Terminated) {
                throw new DeathPactException(about);
            }
            return current;
        }
        if (next instanceof DeferredBehavior || next instanceof SupervisedBehavior) {
            final Behavior<T> started = unwrap(next);
            return started == SpecialBehavior.SAME || started == SpecialBehavior.UNHANDLED ? current : started;
        }
        return next;
    }

    /** @return whether the actor is to stop */
    private boolean become(Behavior<T> next) {
        if (next == SpecialBehavior.STOPPED) {
            stopped = true;
            return true;
        }
        behavior = next;
        return false;
    }

    /** Unwraps setup and supervision until a behavior that takes messages remains. */
    private Behavior<T> unwrap(Behavior<T> b) {
        Behavior<T> current = b;
        for (int depth = 0; ; depth++) {
            if (depth > MAX_NESTING) {
                throw new IllegalStateException("behaviors nested more than " + MAX_NESTING + " deep in " + context.self().path());
            }
            if (current instanceof DeferredBehavior) {
                current = ((DeferredBehavior<T>) current).create(this);
            } else if (current instanceof SupervisedBehavior) {
                final SupervisedBehavior<T> s = (SupervisedBehavior<T>) current;
                supervision().register(s);
                current = s.wrapped();
            } else {
                return current;
            }
        }
    }

    // =====================================================================================
    // State
    // =====================================================================================

    /** @return the actor's supervision, created on first use */
    Supervision supervision() {
        Supervision s = supervision;
        if (s == null) {
            s = new Supervision();
            supervision = s;
        }
        return s;
    }

    /** @return the supervision, or null if the actor never started a supervised behavior */
    Supervision supervisionOrNull() {
        return supervision;
    }

    /** @return whether the actor has a behavior (it has started) */
    boolean hasBehavior() {
        return behavior != null;
    }

    /** @return the name of the class that defined the current (or, before start, the initial) behavior, for logs and metrics */
    @Override
    public String definingClassName() {
        final Behavior<T> b = behavior;
        return BehaviorNames.definingClassName(b != null ? b : initial);
    }

    // =====================================================================================
    // What deferred behaviors ask for when they start
    // =====================================================================================

    /** @return the context handed to behaviors */
    ActorContext<T> context() {
        return context;
    }

    /** @return the actor's timers, created on first use */
    TimerScheduler<T> timers() {
        return host.timers();
    }

    /**
     * @param capacity the most messages it holds
     * @param factory makes the behavior with the new buffer
     * @return the factory's behavior
     */
    Behavior<T> newStashBuffer(int capacity, Function<StashBuffer<T>, Behavior<T>> factory) {
        return factory.apply(new StashBufferImpl<>(this, context.self().path(), capacity));
    }

    /** From now until the actor restarts or stops, every message and signal is logged at DEBUG. */
    void logMessages() {
        logMessages = true;
    }

    private void logMessage(Object msg) {
        final Logger log = context.log();
        if (log.isDebugEnabled()) {
            log.debug("actor [{}] received message: {}", context.self().path(), msg);
        }
    }

    private void logSignal(Signal signal) {
        final Logger log = context.log();
        if (log.isDebugEnabled()) {
            log.debug("actor [{}] received signal: {}", context.self().path(), signal);
        }
    }
}
