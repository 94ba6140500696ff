package dev.troupe.actor;

import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds a behavior from message and signal cases, from {@link Behaviors#receive(Class)}.
 * Cases are tried in the order they were added. The built behavior is immutable and
 * may be shared and returned from handlers.
 *
 * @param <T> the type of message the actor accepts
 */
public final class BehaviorBuilder<T> {

    private final ReceiveBuilder<T> cases = new ReceiveBuilder<>();

    BehaviorBuilder() {
    }

    /**
     * @param type the message class
     * @param handler the handler
     * @param <M> the message class
     * @return this builder
     */
    public <M extends T> BehaviorBuilder<T> onMessage(Class<M> type, Function<M, Behavior<T>> handler) {
        cases.onMessage(type, handler);
        return this;
    }

    /**
     * @param type the message class
     * @param test a further condition
     * @param handler the handler
     * @param <M> the message class
     * @return this builder
     */
    public <M extends T> BehaviorBuilder<T> onMessage(Class<M> type, Predicate<M> test, Function<M, Behavior<T>> handler) {
        cases.onMessage(type, test, handler);
        return this;
    }

    /**
     * @param msg a message, matched by {@code equals}
     * @param handler the handler
     * @return this builder
     */
    public BehaviorBuilder<T> onMessageEquals(T msg, Supplier<Behavior<T>> handler) {
        cases.onMessageEquals(msg, handler);
        return this;
    }

    /**
     * @param handler handles every message no earlier case matched
     * @return this builder
     */
    public BehaviorBuilder<T> onAnyMessage(Function<T, Behavior<T>> handler) {
        cases.onAnyMessage(handler);
        return this;
    }

    /**
     * @param type the signal class
     * @param handler the handler
     * @param <S> the signal class
     * @return this builder
     */
    public <S extends Signal> BehaviorBuilder<T> onSignal(Class<S> type, Function<S, Behavior<T>> handler) {
        cases.onSignal(type, handler);
        return this;
    }

    /**
     * @param signal a signal, matched by {@code equals}
     * @param handler the handler
     * @return this builder
     */
    public BehaviorBuilder<T> onSignalEquals(Signal signal, Supplier<Behavior<T>> handler) {
        cases.onSignalEquals(signal, handler);
        return this;
    }

    /** @return the behavior */
    public Behavior<T> build() {
        final Receive<T> receive = cases.build();
        return new ExtensibleBehavior<T>() {
            @Override
            public Behavior<T> receive(ActorContext<T> ctx, T msg) {
                return receive.receiveMessage(msg);
            }

            @Override
            public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
                return receive.receiveSignal(signal);
            }
        };
    }
}
