package dev.troupe.persistence.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.persistence.Effect;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one implementation of {@link Effect} (and of the durable-state effect): a kind, the events
 * or state to persist, and a chain of side effects. The shared constants ({@link #none()} and the
 * like) are copied on their first {@code then...}; an effect made for one command is added to in
 * place. The effect is itself the first {@link SideEffect} of its chain, so the usual
 * {@code persist(event).thenReply(...)} is one object per command; each further side effect is one more.
 */
public final class EffectImpl<E, S> extends SideEffect implements Effect<E, S>, dev.troupe.persistence.StateEffect<S> {

    /** Kinds. */
    public static final int NONE = 0;
    public static final int PERSIST = 1;
    public static final int PERSIST_ALL = 2;
    public static final int UNHANDLED = 3;
    public static final int STOP = 4;
    public static final int STASH = 5;
    public static final int PERSIST_STATE = 6;
    public static final int DELETE_STATE = 7;

    private static final EffectImpl<?, ?> NONE_EFFECT = new EffectImpl<>(NONE, null, true);
    private static final EffectImpl<?, ?> UNHANDLED_EFFECT = new EffectImpl<>(UNHANDLED, null, true);
    private static final EffectImpl<?, ?> STOP_EFFECT = new EffectImpl<>(STOP, null, true);
    private static final EffectImpl<?, ?> STASH_EFFECT = new EffectImpl<>(STASH, null, true);

    private final int effectKind;
    private final Object payload;
    private final boolean shared;
    /** Whether this object holds a side effect (its own, the chain's first). */
    private boolean hasSideEffect;
    private SideEffect last;

    private EffectImpl(int kind, Object payload, boolean shared) {
        this.effectKind = kind;
        this.payload = payload;
        this.shared = shared;
    }

    public static <E, S> Effect<E, S> persist(E event) {
        return new EffectImpl<>(PERSIST, Objects.requireNonNull(event, "event"), false);
    }

    public static <E, S> Effect<E, S> persistAll(List<? extends E> events) {
        Objects.requireNonNull(events, "events");
        for (int i = 0; i < events.size(); i++) {
            Objects.requireNonNull(events.get(i), "events must not contain null");
        }
        return events.isEmpty() ? none() : new EffectImpl<>(PERSIST_ALL, List.copyOf(events), false);
    }

    public static <S> EffectImpl<Object, S> persistState(S state) {
        return new EffectImpl<>(PERSIST_STATE, Objects.requireNonNull(state, "state"), false);
    }

    public static <S> EffectImpl<Object, S> deleteState() {
        return new EffectImpl<>(DELETE_STATE, null, false);
    }

    @SuppressWarnings("unchecked")
    public static <E, S> EffectImpl<E, S> none() {
        return (EffectImpl<E, S>) NONE_EFFECT;
    }

    @SuppressWarnings("unchecked")
    public static <E, S> EffectImpl<E, S> unhandled() {
        return (EffectImpl<E, S>) UNHANDLED_EFFECT;
    }

    @SuppressWarnings("unchecked")
    public static <E, S> EffectImpl<E, S> stop() {
        return (EffectImpl<E, S>) STOP_EFFECT;
    }

    @SuppressWarnings("unchecked")
    public static <E, S> EffectImpl<E, S> stash() {
        return (EffectImpl<E, S>) STASH_EFFECT;
    }

    /** @return the kind */
    public int kind() {
        return effectKind;
    }

    /** @return the event (PERSIST), the list of events (PERSIST_ALL) or the state (PERSIST_STATE) */
    public Object payload() {
        return payload;
    }

    /** @return the first side effect, or null */
    public SideEffect sideEffects() {
        return hasSideEffect ? this : null;
    }

    /** Adds a side effect: the first into this object's own fields (no allocation), the others as nodes. */
    private EffectImpl<E, S> add(int sideKind, Object function, ActorRef<Object> replyTo) {
        final EffectImpl<E, S> target = shared ? new EffectImpl<>(effectKind, payload, false) : this;
        if (!target.hasSideEffect) {
            target.set(sideKind, function, replyTo);
            target.hasSideEffect = true;
            target.last = target;
        } else {
            final SideEffect s = new SideEffect(sideKind, function, replyTo);
            target.last.next = s;
            target.last = s;
        }
        return target;
    }

    @Override
    public EffectImpl<E, S> thenRun(Consumer<? super S> callback) {
        return add(SideEffect.RUN, Objects.requireNonNull(callback, "callback"), null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <R> EffectImpl<E, S> thenReply(ActorRef<R> replyTo, Function<? super S, ? extends R> reply) {
        Objects.requireNonNull(replyTo, "replyTo");
        return add(SideEffect.REPLY, Objects.requireNonNull(reply, "reply"), (ActorRef<Object>) replyTo);
    }

    @Override
    public EffectImpl<E, S> thenStop() {
        return add(SideEffect.STOP, null, null);
    }

    @Override
    public EffectImpl<E, S> thenUnstashAll() {
        return add(SideEffect.UNSTASH_ALL, null, null);
    }

    @Override
    public String toString() {
        final String[] names = {"none", "persist", "persist", "unhandled", "stop", "stash", "persist", "delete"};
        return "Effect(" + names[effectKind] + (payload != null ? " " + payload : "") + ")";
    }
}
