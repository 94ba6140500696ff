package dev.troupe.actor;

import dev.troupe.actor.internal.Cases;

import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds the {@link Receive} of an {@link AbstractBehavior}. Cases are tried in the order
 * they were added; the first match handles the message.
 *
 * @param <T> the type of message the actor accepts
 */
public final class ReceiveBuilder<T> {

    private final Cases.Builder<Behavior<T>> messages = new Cases.Builder<>();
    private final Cases.Builder<Behavior<T>> signals = new Cases.Builder<>();

    ReceiveBuilder() {
    }

    /** @param <T> the message type @return a new builder */
    public static <T> ReceiveBuilder<T> create() {
        return new ReceiveBuilder<>();
    }

    /**
     * @param type the message class
     * @param handler the handler
     * @param <M> the message class
     * @return this builder
     */
    public <M extends T> ReceiveBuilder<T> onMessage(Class<M> type, Function<M, Behavior<T>> handler) {
        messages.add(type, null, handler);
        return this;
    }

    /**
     * @param type the message class
     * @param test a further condition
     * @param handler the handler
     * @param <M> the message class
     * @return this builder
     */
    public <M extends T> ReceiveBuilder<T> onMessage(Class<M> type, Predicate<M> test, Function<M, Behavior<T>> handler) {
        messages.add(type, test, handler);
        return this;
    }

    /**
     * @param msg a message, matched by {@code equals}
     * @param handler the handler
     * @return this builder
     */
    @SuppressWarnings("unchecked")
    public ReceiveBuilder<T> onMessageEquals(T msg, Supplier<Behavior<T>> handler) {
        messages.add((Class<T>) msg.getClass(), msg::equals, m -> handler.get());
        return this;
    }

    /**
     * @param handler handles every message no earlier case matched
     * @return this builder
     */
    @SuppressWarnings("unchecked")
    public ReceiveBuilder<T> onAnyMessage(Function<T, Behavior<T>> handler) {
        messages.add((Class<T>) Object.class, null, handler);
        return this;
    }

    /**
     * @param type the signal class
     * @param handler the handler
     * @param <S> the signal class
     * @return this builder
     */
    public <S extends Signal> ReceiveBuilder<T> onSignal(Class<S> type, Function<S, Behavior<T>> handler) {
        signals.add(type, null, handler);
        return this;
    }

    /**
     * @param signal a signal, matched by {@code equals}
     * @param handler the handler
     * @return this builder
     */
    @SuppressWarnings("unchecked")
    public ReceiveBuilder<T> onSignalEquals(Signal signal, Supplier<Behavior<T>> handler) {
        signals.add((Class<Signal>) signal.getClass(), signal::equals, s -> handler.get());
        return this;
    }

    /** @return the compiled cases */
    public Receive<T> build() {
        return new Receive<>(messages.build(), signals.build());
    }
}
