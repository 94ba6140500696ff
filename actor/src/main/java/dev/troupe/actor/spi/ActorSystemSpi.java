package dev.troupe.actor.spi;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;

import java.time.Duration;

/**
 * The runtime hooks of one {@link ActorSystem}, for the modules built beside the runtime.
 * Get it once (at start-up) with {@link #of(ActorSystem)} and keep it; every method is
 * thread-safe.
 */
public interface ActorSystemSpi {

    /**
     * @param system a running or terminated system
     * @return its runtime hooks
     */
    static ActorSystemSpi of(ActorSystem system) {
        // The runtime registers itself as the system's extension under this interface when the
        // system is created, so no public method of ActorSystem has to hand it out.
        return system.extension(ActorSystemSpi.class, s -> {
            throw new IllegalStateException(s + " has no runtime");
        });
    }

    /** @return the system these hooks belong to */
    ActorSystem system();

    /**
     * Finds a live local actor, or a temporary ref, by path; the path's address is ignored and
     * its uid is checked unless it is 0.
     *
     * @param path the path
     * @param <T> the message type the caller expects
     * @return the ref, or null when nothing lives there
     */
    <T> InternalActorRef<T> resolveLocal(ActorPath path);

    /**
     * A fresh path under {@code /temp} for a temporary ref (an ask's reply-to ref, a transport's
     * stand-in). The name is 64 random bits from a {@link java.security.SecureRandom}, so it cannot
     * be guessed from the names of other temporary refs; it is not in use when returned.
     *
     * @return the path, not yet registered
     */
    ActorPath newTempPath();

    /**
     * Makes a temporary ref reachable by {@link #resolveLocal} (and so from other nodes) under
     * its path, which must come from {@link #newTempPath()}.
     *
     * @param ref the ref
     */
    void registerTempRef(InternalActorRef<?> ref);

    /**
     * @param ref a ref registered with {@link #registerTempRef}; unknown refs are ignored
     */
    void unregisterTempRef(InternalActorRef<?> ref);

    /**
     * Runs a task once on the system's timer thread after a delay. The task must be short and
     * must not block (tell an actor or complete a future). Allocates a timer entry per call;
     * meant for ask timeouts and the like, not per message. If the system terminates first, the
     * task never runs.
     *
     * @param delay how long from now
     * @param task what to run
     * @return a handle that cancels the task if it has not run yet
     */
    Cancellable scheduleOnce(Duration delay, Runnable task);

    /** @return whether the calling thread is one of this system's dispatcher or timer threads */
    boolean isActorThread();

    /**
     * Defers a short task to the end of the actor turn the calling thread is running, if it is a
     * dispatcher thread (of any system) in a turn; the same task deferred twice in one turn runs
     * once. A transport uses it to wake its I/O thread once for every message a turn sent to a
     * node, instead of once per message. The task must not block; it runs on the dispatcher thread
     * right after the turn.
     *
     * @param task the task, compared by identity (keep one instance, do not allocate per call)
     * @return true if deferred; false if the caller must run the task itself (not a dispatcher
     *         thread, or too many tasks deferred already)
     */
    boolean runAtEndOfTurn(Runnable task);

    /**
     * Whether the calling thread is a dispatcher thread (of any system) that has more actors to
     * run once its current turn ends: one it runs next, or one queued on its dispatcher. A task
     * deferred with {@link #runAtEndOfTurn} asks it to tell a thread about to go idle (which may
     * as well do a transport's write itself) from a busy one (which hands the write to the I/O
     * thread and goes on with its actors). A plain read of two fields; false on any other thread.
     *
     * @return true if more work waits for the calling dispatcher thread
     */
    boolean hasWorkAfterTurn();

    /**
     * Starts a burst of tells from the calling thread, which must not be a dispatcher thread (a
     * transport's I/O thread delivering the frames of one read): actors the burst schedules are
     * handed to their dispatchers at {@link #endTellBatch()}, so an actor that gets many messages
     * of the burst runs them in one turn. Bursts nest; every begin needs its end, in a
     * {@code finally}. At most a few hundred actors wait; more are scheduled at once.
     */
    void beginTellBatch();

    /** Ends the calling thread's burst (see {@link #beginTellBatch()}); the outermost end schedules the actors. */
    void endTellBatch();

    /**
     * Counts an undeliverable message, tells dead-letter subscribers and logs it (rate-limited).
     *
     * @param message the message
     * @param recipient where it was going
     * @param reason why it was not delivered
     */
    void publishDeadLetter(Object message, ActorPath recipient, DeadLetterReason reason);

    /**
     * A driver that runs {@code behavior} on the calling thread for {@code host}, with the
     * runtime's own interpreter: for tools that run a behavior outside an actor (the test kit's
     * synchronous {@code BehaviorTestKit}). Nothing is spawned; the driver uses this system for
     * nothing but the interpretation code.
     *
     * @param host the context, timers and unhandled-message sink the behavior sees
     * @param behavior the initial behavior, not yet started
     * @param <T> the message type
     * @return the driver; call {@link BehaviorDriver#start()} first
     */
    <T> BehaviorDriver<T> newBehaviorDriver(BehaviorHost<T> host, Behavior<T> behavior);

    /**
     * @return the message instrumentation installed with
     *         {@code ActorSystemSettings.Builder.instrumentation}, or null (then a transport adds no
     *         headers and calls nothing per message)
     */
    MessageInstrumentation instrumentation();
}
