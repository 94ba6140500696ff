package dev.troupe.actor.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeathPactException;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Signal;
import dev.troupe.actor.Terminated;

/**
 * Runs an actor's behavior: hands it messages and signals and works out the behavior that
 * comes next. There is one path for that, {@link #next}, whatever the input was (a message
 * from the mailbox, a signal, a message taken from a stash): the markers
 * ({@code same}, {@code unhandled}, {@code stopped}) and the deferred and supervised
 * behaviors are resolved there and nowhere else.
 *
 * <p>Actor thread only. On the message path, a handler that returns {@code same()} or the
 * behavior itself costs two reference compares and allocates nothing.
 *
 * <p>The {@link ActorLifecycle} extends this class: the interpreter and the lifecycle are two
 * rooms of the same actor-thread state, kept in one object so that an idle actor pays for one
 * object header instead of two (JCTools-style layering of fields through a class hierarchy).
 */
abstract class BehaviorInterpreter<T> {

    private static final int MAX_NESTING = 1000;

    /** The context handed to behaviors; set once by the subclass's constructor. */
    ActorContextImpl<T> context;
    private final Behavior<T> initial;
    /** The current behavior; null until the actor started. Never a marker but {@code stopped} transiently. */
    private Behavior<T> behavior;
    /** Created when the actor first starts a supervised behavior. */
    private Supervision supervision;

    BehaviorInterpreter(Behavior<T> initial) {
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
        final Behavior<T> next = b instanceof ExtensibleBehavior ? ((ExtensibleBehavior<T>) b).receive(context, msg) : inert(b);
        if (next == b || next == SpecialBehavior.SAME) {
            return false;
        }
        return become(next(b, next, msg, null));
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
        final Behavior<T> next = b instanceof ExtensibleBehavior ? ((ExtensibleBehavior<T>) b).receiveSignal(context, signal) : inert(b);
        if (next == b || next == SpecialBehavior.SAME) {
            return false;
        }
        return become(next(b, next, signal, about));
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
        final Behavior<T> next = current instanceof ExtensibleBehavior
            ? ((ExtensibleBehavior<T>) current).receive(context, msg) : inert(current);
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
    boolean start() {
        final Behavior<T> started = unwrap(initial);
        if (started == SpecialBehavior.SAME || started == SpecialBehavior.UNHANDLED) {
            throw new IllegalStateException("the initial behavior of " + context.self().path() + " must not be same() or unhandled()");
        }
        if (started == SpecialBehavior.STOPPED) {
            behavior = SpecialBehavior.<T>empty();
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
                context.cell().runtime.deadLetters.publish(input, context.self().path(), DeadLetterReason.UNHANDLED);
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
                current = ((DeferredBehavior<T>) current).create(context);
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

    /** @return the class that defines the current (or initial) behavior, for logs and metrics */
    Class<?> behaviorClass() {
        final Behavior<T> b = behavior != null ? behavior : initial;
        return b.getClass();
    }
}
