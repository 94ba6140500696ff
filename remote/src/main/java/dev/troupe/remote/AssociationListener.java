package dev.troupe.remote;

/**
 * Hears the transport's {@link AssociationEvent}s; register with
 * {@link RemoteTransport#addAssociationListener}.
 *
 * <p>Contract: called on the association's I/O thread, so events about one node arrive in the
 * order they happened, and events about different nodes may arrive concurrently. Must be quick,
 * must not block, and should not throw (a thrown exception is logged and the event is not
 * retried). Connection-time traffic only: nothing is called per message.
 */
@FunctionalInterface
public interface AssociationListener {

    /**
     * @param event what happened
     */
    void onEvent(AssociationEvent event);
}
