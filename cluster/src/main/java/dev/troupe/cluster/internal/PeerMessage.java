package dev.troupe.cluster.internal;

import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.UniqueAddress;

import java.util.Objects;

/**
 * A {@link ClusterMessage} on the remote transport, to a node's cluster endpoint. The sender
 * leaves {@code from} null; {@link ClusterMessageSerializer} fills it on the receiving node with
 * the incarnation the connection's handshake authenticated, never with anything the message says.
 *
 * @param from the authenticated sender (null on the sending side)
 * @param message the message
 */
public record PeerMessage(UniqueAddress from, ClusterMessage message) {

    /** Validates. */
    public PeerMessage {
        Objects.requireNonNull(message, "message");
    }
}
