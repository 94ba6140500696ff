package dev.troupe.persistence;

import dev.troupe.actor.ActorRef;

import java.util.List;

/**
 * The {@link Effect} factories with the event and state types fixed, so a chain such as
 * {@code Effect().persist(e).thenReply(to, state -> ...)} knows the state's type. Stateless: one
 * instance serves every entity.
 *
 * @param <E> the event type
 * @param <S> the state type
 */
public final class EffectFactories<E, S> {

    private static final EffectFactories<?, ?> INSTANCE = new EffectFactories<>();

    private EffectFactories() {
    }

    @SuppressWarnings("unchecked")
    static <E, S> EffectFactories<E, S> instance() {
        return (EffectFactories<E, S>) INSTANCE;
    }

    /**
     * @param event the event
     * @return {@link Effect#persist(Object)}
     */
    public Effect<E, S> persist(E event) {
        return Effect.persist(event);
    }

    /**
     * @param events the events
     * @return {@link Effect#persist(List)}
     */
    public Effect<E, S> persist(List<? extends E> events) {
        return Effect.persist(events);
    }

    /** @return {@link Effect#none()} */
    public Effect<E, S> none() {
        return Effect.none();
    }

    /** @return {@link Effect#unhandled()} */
    public Effect<E, S> unhandled() {
        return Effect.unhandled();
    }

    /** @return {@link Effect#stop()} */
    public Effect<E, S> stop() {
        return Effect.stop();
    }

    /** @return {@link Effect#stash()} */
    public Effect<E, S> stash() {
        return Effect.stash();
    }

    /** @return {@link Effect#unstashAll()} */
    public Effect<E, S> unstashAll() {
        return Effect.unstashAll();
    }

    /**
     * @param replyTo where
     * @param reply what
     * @param <R> the reply type
     * @return {@link Effect#reply(ActorRef, Object)}
     */
    public <R> Effect<E, S> reply(ActorRef<R> replyTo, R reply) {
        return Effect.reply(replyTo, reply);
    }
}
