package dev.troupe.actor.spi.instrumentation;

import dev.troupe.actor.ActorRef;

/**
 * Hooks the runtime calls around the messages of one system, for tracing and observations
 * libraries (the Spring Boot starter's Micrometer Observation support implements it); applications
 * do not implement it themselves. Installed per system
 * with {@code ActorSystemSettings.Builder.instrumentation}; without one the runtime calls nothing,
 * carries nothing and allocates nothing more per message.
 *
 * <p>With one installed, each tell of a user message to a local actor or a remote ref calls
 * {@link #onSend} on the sending thread; a non-null {@link MessageContext} travels with the
 * message (one small envelope per message in a local mailbox; a header block in the frame of a
 * remote one) and the actor's thread calls {@link #beforeProcess} and {@link #afterProcess} around
 * the behavior's handling of it. Runtime messages (timers, message adapters, {@code pipeToSelf},
 * the replies of {@code ActorContext.ask}) carry no context. An ask calls {@link #beforeAsk}
 * before its request is told, {@link #afterAskSent} once it is, and {@link #askCompleted} when
 * it ends, on whatever thread ends it.
 *
 * <p>Implementations are called from any thread concurrently, must be fast, and must not throw:
 * an exception from a hook is a failure of the sender or of the actor.
 */
public interface MessageInstrumentation {

    /**
     * A user message is about to be queued for {@code recipient}, on the sending thread.
     *
     * @param recipient a local actor or a remote ref (an {@code InternalActorRef} whose {@code isLocal()} tells which)
     * @param message the message
     * @return the context to carry with the message, or null to carry none (the message then goes
     *         as if no instrumentation were installed)
     */
    MessageContext onSend(ActorRef<?> recipient, Object message);

    /**
     * The recipient's thread is about to process a message that carries a context.
     *
     * @param recipient the local actor
     * @param behaviorClass the name of the class that defined the actor's current behavior
     * @param message the message
     * @param context what {@link #onSend} returned, or what a transport read from the headers
     *        another node sent (then {@link MessageContext#local()} is null)
     * @return a token handed to {@link #afterProcess}
     */
    Object beforeProcess(ActorRef<?> recipient, String behaviorClass, Object message, MessageContext context);

    /**
     * The behavior has handled the message, on the same thread as {@link #beforeProcess}.
     *
     * @param token what {@link #beforeProcess} returned
     * @param failure what the behavior threw (supervision handles it next), or null
     */
    void afterProcess(Object token, Throwable failure);

    /**
     * An ask is about to tell its request, on the asking thread.
     *
     * @param target the actor asked
     * @param request the request
     * @return a token handed to {@link #afterAskSent} and {@link #askCompleted}
     */
    Object beforeAsk(ActorRef<?> target, Object request);

    /**
     * The ask's request was told, on the thread that called {@link #beforeAsk}.
     *
     * @param token what {@link #beforeAsk} returned
     */
    void afterAskSent(Object token);

    /**
     * The ask ended, with a reply or a failure (timeout, the node lost, a reply of another class).
     *
     * @param token what {@link #beforeAsk} returned
     * @param failure why it failed, or null for a reply
     */
    void askCompleted(Object token, Throwable failure);
}
