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

    /**
     * For a message adapter, the message sent to the adapter. For a {@code pipeToSelf} or
     * {@code ask} result, the message the actor would have received: its function is a
     * conversion by contract, so it is run here, where the dead letter is published, to name the
     * message's type (with no function run, a failed future's dead letter would be null). If the
     * function fails or returns null, the value, the failure, or this envelope describing them.
     */
    @Override
    Object userMessage() {
        if (resultAdapter == null) {
            return value;
        }
        try {
            final Object msg = resultAdapter.apply(value, failure);
            if (msg != null) {
                return msg;
            }
        } catch (RuntimeException e) {
            // fall through to what the result was
        }
        return value != null ? value : failure != null ? failure : this;
    }

    @Override
    public String toString() {
        return "AdaptMessage(" + (failure != null ? "failure " + failure : "value " + value) + ")";
    }
}
