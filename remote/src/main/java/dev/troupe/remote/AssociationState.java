package dev.troupe.remote;

/** Where an association with one remote node stands. */
public enum AssociationState {
    /** Connecting, or waiting for the next reconnect attempt; messages queue in the outbound buffer. */
    CONNECTING("connecting"),
    /** Handshake done: messages flow. */
    ACTIVE("active"),
    /** The failure detector declared the node lost (or it restarted); still trying to reconnect. */
    UNREACHABLE("unreachable"),
    /** The transport shut down. */
    CLOSED("closed");

    private final String tag;

    AssociationState(String tag) {
        this.tag = tag;
    }

    /** @return the state as a lowercase tag value */
    public String tag() {
        return tag;
    }
}
