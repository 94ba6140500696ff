package dev.troupe.actor;

/**
 * A behavior that handles messages and signals itself. {@link AbstractBehavior} and the
 * functional behaviors of {@link Behaviors} are extensible behaviors; extend this
 * directly only for a behavior that needs neither.
 *
 * <p>Both methods run on the actor's thread, one message at a time. They may return
 * {@link Behaviors#same()}, {@link Behaviors#unhandled()}, {@link Behaviors#stopped()}
 * or any other behavior to switch to.
 *
 * @param <T> the type of message the actor accepts
 */
public abstract class ExtensibleBehavior<T> extends Behavior<T> {

    /**
     * @param ctx the actor's context
     * @param msg the message
     * @return the next behavior
     * @throws Exception a failure, handled by the actor's supervision
     */
    public abstract Behavior<T> receive(ActorContext<T> ctx, T msg) throws Exception;

    /**
     * @param ctx the actor's context
     * @param signal the signal
     * @return the next behavior; {@link Behaviors#unhandled()} by default
     * @throws Exception a failure, handled by the actor's supervision
     */
    public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) throws Exception {
        return Behaviors.unhandled();
    }
}
