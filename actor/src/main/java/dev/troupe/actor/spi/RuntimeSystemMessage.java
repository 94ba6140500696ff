package dev.troupe.actor.spi;

/**
 * A system message of the local runtime's own (start, stop, a child's termination, the end of
 * a supervision backoff). It never leaves the JVM; a handler outside the runtime ignores it.
 * Subclassed by the runtime only.
 */
public abstract non-sealed class RuntimeSystemMessage extends SystemMessage {

    /** For the runtime's lifecycle messages. */
    protected RuntimeSystemMessage() {
    }

    @Override
    public final void dispatch(SystemMessageHandler handler) {
        handler.onRuntimeMessage(this);
    }
}
