package dev.troupe.actor;

import dev.troupe.actor.internal.BuiltBehavior;

import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds a behavior from message and signal cases, from {@link Behaviors#receive(Class)}.
 * Cases are tried in the order they were added. The built behavior is immutable and
 * may be shared and returned from handlers. A message that is not of the builder's class
 * (only an unchecked cast can send one) is a dead letter with reason {@code wrong-type}.
 *
 * @param <T> the type of message the actor accepts
 */
public final class BehaviorBuilder<T> {

    private static final StackWalker CALLER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final Class<T> type;
    private final ReceiveBuilder<T> cases = new ReceiveBuilder<>();
    /** The first handler given: the class whose code wrote it defined the behavior (logger name, endpoint). */
    private Object definedBy;

    BehaviorBuilder(Class<T> type) {
        this.type = type;
    }

    private void definedBy(Object handler) {
        if (definedBy == null && handler != null) {
            definedBy = handler;
        }
    }

    /**
     * @param type the message class
     * @param handler the handler
     * @param <M> the message class
     * @return this builder
     */
    public <M extends T> BehaviorBuilder<T> onMessage(Class<M> type, Function<M, Behavior<T>> handler) {
        definedBy(handler);
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
        definedBy(handler);
        cases.onMessage(type, test, handler);
        return this;
    }

    /**
     * @param msg a message, matched by {@code equals}
     * @param handler the handler
     * @return this builder
     */
    public BehaviorBuilder<T> onMessageEquals(T msg, Supplier<Behavior<T>> handler) {
        definedBy(handler);
        cases.onMessageEquals(msg, handler);
        return this;
    }

    /**
     * @param handler handles every message no earlier case matched
     * @return this builder
     */
    public BehaviorBuilder<T> onAnyMessage(Function<T, Behavior<T>> handler) {
        definedBy(handler);
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
        definedBy(handler);
        cases.onSignal(type, handler);
        return this;
    }

    /**
     * @param signal a signal, matched by {@code equals}
     * @param handler the handler
     * @return this builder
     */
    public BehaviorBuilder<T> onSignalEquals(Signal signal, Supplier<Behavior<T>> handler) {
        definedBy(handler);
        cases.onSignalEquals(signal, handler);
        return this;
    }

    /** @return the behavior */
    public Behavior<T> build() {
        // Without a handler there is no lambda to name the defining class: ask the stack, once.
        final Object origin = definedBy != null ? definedBy : CALLER.getCallerClass();
        return new BuiltBehavior<>(type, cases.build(), origin);
    }
}
