package dev.troupe.persistence;

import dev.troupe.actor.ActorRef;
import dev.troupe.persistence.internal.EffectImpl;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a command handler decided: events to persist (or nothing, a stop, a stash), then side
 * effects that run once those events are durable, in the order they were added.
 *
 * <pre>{@code
 * return Effect().persist(new Reserved(cmd.quantity()))
 *     .thenReply(cmd.replyTo(), state -> new Stock(state.available()));
 * }</pre>
 *
 * <p>The static factories suit a handler that returns the effect directly ({@code return
 * Effect.persist(event);}); in a chain, Java cannot infer the state type from them, so use the
 * typed factories of {@link EventSourcedBehavior#Effect()} or {@link #factories()}. An effect is
 * meant to be returned once: its {@code then...} methods add to it and return it.
 *
 * @param <E> the event type
 * @param <S> the state type
 */
public interface Effect<E, S> {

    /**
     * @param event the event to persist; the event handler applies it, and side effects run once it is durable
     * @param <E> the event type
     * @param <S> the state type
     * @return the effect
     */
    static <E, S> Effect<E, S> persist(E event) {
        return EffectImpl.persist(event);
    }

    /**
     * @param events events to persist in one atomic write (all or none), in order
     * @param <E> the event type
     * @param <S> the state type
     * @return the effect
     */
    static <E, S> Effect<E, S> persist(List<? extends E> events) {
        return EffectImpl.persistAll(events);
    }

    /**
     * @param <E> the event type
     * @param <S> the state type
     * @return persist nothing; side effects run at once
     */
    static <E, S> Effect<E, S> none() {
        return EffectImpl.none();
    }

    /**
     * @param <E> the event type
     * @param <S> the state type
     * @return the command is not handled: a dead letter with reason {@code unhandled}
     */
    static <E, S> Effect<E, S> unhandled() {
        return EffectImpl.unhandled();
    }

    /**
     * @param <E> the event type
     * @param <S> the state type
     * @return stop the entity (after side effects)
     */
    static <E, S> Effect<E, S> stop() {
        return EffectImpl.stop();
    }

    /**
     * @param <E> the event type
     * @param <S> the state type
     * @return keep the command for later, until an effect with {@link #thenUnstashAll()} or
     *         {@link #unstashAll()} (bounded by the stash capacity)
     */
    static <E, S> Effect<E, S> stash() {
        return EffectImpl.stash();
    }

    /**
     * @param <E> the event type
     * @param <S> the state type
     * @return handle the commands stashed with {@link #stash()} now, oldest first
     */
    static <E, S> Effect<E, S> unstashAll() {
        return EffectImpl.<E, S>none().thenUnstashAll();
    }

    /**
     * @param replyTo where to reply
     * @param reply the reply
     * @param <E> the event type
     * @param <S> the state type
     * @param <R> the reply type
     * @return persist nothing and reply
     */
    static <E, S, R> Effect<E, S> reply(ActorRef<R> replyTo, R reply) {
        return EffectImpl.<E, S>none().thenReply(replyTo, s -> reply);
    }

    /**
     * @param <E> the event type
     * @param <S> the state type
     * @return the typed factories, for chains
     */
    static <E, S> EffectFactories<E, S> factories() {
        return EffectFactories.instance();
    }

    /**
     * @param callback runs with the state after the events, once they are durable
     * @return this effect
     */
    Effect<E, S> thenRun(Consumer<? super S> callback);

    /**
     * @param replyTo where to reply, once the events are durable
     * @param reply makes the reply from the state after the events
     * @param <R> the reply type
     * @return this effect
     */
    <R> Effect<E, S> thenReply(ActorRef<R> replyTo, Function<? super S, ? extends R> reply);

    /** @return this effect, stopping the entity after it */
    Effect<E, S> thenStop();

    /** @return this effect, handling the commands stashed with {@link #stash()} after it */
    Effect<E, S> thenUnstashAll();
}
