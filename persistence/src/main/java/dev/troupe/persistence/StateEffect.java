package dev.troupe.persistence;

import dev.troupe.actor.ActorRef;
import dev.troupe.persistence.internal.EffectImpl;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a {@link DurableStateBehavior}'s command handler decided: a new state to store (at the
 * next revision), a deletion, or nothing; then side effects that run once the write is durable.
 *
 * @param <S> the state type
 */
public interface StateEffect<S> {

    /**
     * @param state the new state
     * @param <S> the state type
     * @return store it at the next revision
     */
    static <S> StateEffect<S> persist(S state) {
        return EffectImpl.persistState(state);
    }

    /**
     * @param <S> the state type
     * @return delete the stored state (the revision still advances; the state becomes the empty state)
     */
    static <S> StateEffect<S> delete() {
        return EffectImpl.deleteState();
    }

    /**
     * @param <S> the state type
     * @return nothing to store
     */
    static <S> StateEffect<S> none() {
        return EffectImpl.none();
    }

    /**
     * @param <S> the state type
     * @return not handled: a dead letter with reason {@code unhandled}
     */
    static <S> StateEffect<S> unhandled() {
        return EffectImpl.unhandled();
    }

    /**
     * @param <S> the state type
     * @return stop the entity
     */
    static <S> StateEffect<S> stop() {
        return EffectImpl.stop();
    }

    /**
     * @param <S> the state type
     * @return keep the command until {@link #thenUnstashAll()}
     */
    static <S> StateEffect<S> stash() {
        return EffectImpl.stash();
    }

    /**
     * @param <S> the state type
     * @return handle the stashed commands now
     */
    static <S> StateEffect<S> unstashAll() {
        return EffectImpl.<Object, S>none().thenUnstashAll();
    }

    /**
     * @param replyTo where
     * @param reply what
     * @param <S> the state type
     * @param <R> the reply type
     * @return reply at once
     */
    static <S, R> StateEffect<S> reply(ActorRef<R> replyTo, R reply) {
        return EffectImpl.<Object, S>none().thenReply(replyTo, s -> reply);
    }

    /**
     * @param callback runs with the new state once durable
     * @return this effect
     */
    StateEffect<S> thenRun(Consumer<? super S> callback);

    /**
     * @param replyTo where
     * @param reply from the new state
     * @param <R> the reply type
     * @return this effect
     */
    <R> StateEffect<S> thenReply(ActorRef<R> replyTo, Function<? super S, ? extends R> reply);

    /** @return this effect, then stop */
    StateEffect<S> thenStop();

    /** @return this effect, then handle the stashed commands */
    StateEffect<S> thenUnstashAll();
}
