package dev.troupe.actor.internal;

import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A message to convert on the actor's thread before delivery: from a message adapter or
 * from {@code pipeToSelf}. One envelope per adapted message, documented as such.
 */
final class AdaptMessage extends InternalMessage {

    private final Object value;
    private final Throwable failure;
    private final Function<Object, Object> adapter;
    private final BiFunction<Object, Throwable, Object> resultAdapter;

    @SuppressWarnings("unchecked")
    AdaptMessage(Object value, Function<?, ?> adapter) {
        this.value = value;
        this.failure = null;
        this.adapter = (Function<Object, Object>) adapter;
        this.resultAdapter = null;
    }

    @SuppressWarnings("unchecked")
    AdaptMessage(Object value, Throwable failure, BiFunction<?, Throwable, ?> resultAdapter) {
        this.value = value;
        this.failure = failure;
        this.adapter = null;
        this.resultAdapter = (BiFunction<Object, Throwable, Object>) resultAdapter;
    }

    @Override
    void deliver(ActorLifecycle<?> actor) throws Exception {
        final Object msg = adapter != null ? adapter.apply(value) : resultAdapter.apply(value, failure);
        if (msg == null) {
            throw new IllegalStateException("message adapter returned null for " + (value == null ? "null" : value.getClass().getName()));
        }
        actor.receiveUserMessage(msg);
    }

    @Override
    Object userMessage() {
        return value;
    }
}
