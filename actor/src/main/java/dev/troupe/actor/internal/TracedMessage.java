package dev.troupe.actor.internal;

import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;

/**
 * A user message with the {@link MessageContext} its sender's instrumentation gave it: the
 * instrumentation runs around its processing. Exists only while a {@link MessageInstrumentation}
 * is installed, one per traced message (the cost of tracing, stated in the docs); a system
 * without instrumentation never makes one. Being an {@link InternalMessage}, it needs no test of
 * its own on the dispatch path.
 */
final class TracedMessage extends InternalMessage {

    private final Object message;
    private final MessageContext context;

    TracedMessage(Object message, MessageContext context) {
        this.message = message;
        this.context = context;
    }

    /**
     * @return the message to queue: an envelope if the instrumentation gave the message a context, else the message itself
     */
    static Object wrap(MessageInstrumentation instrumentation, ActorCell<?> recipient, Object message) {
        final MessageContext c = instrumentation.onSend(recipient, message);
        return c == null ? message : new TracedMessage(message, c);
    }

    @Override
    void deliver(ActorLifecycle<?> actor) throws Exception {
        final ActorCell<?> cell = actor.cell();
        final MessageInstrumentation instrumentation = cell.runtime.instrumentation;
        final Object token = instrumentation.beforeProcess(cell, actor.behaviorName(), message, context);
        Throwable failure = null;
        try {
            actor.receiveUserMessage(message);
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            instrumentation.afterProcess(token, failure);
        }
    }

    @Override
    Object userMessage() {
        return message;
    }

    @Override
    public String toString() {
        return "TracedMessage(" + message + ")";
    }
}
