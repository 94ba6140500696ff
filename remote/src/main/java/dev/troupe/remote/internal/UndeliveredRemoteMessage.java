package dev.troupe.remote.internal;

/**
 * Stands in, in a dead letter, for a remote message that exists only as bytes: one that could
 * not be deserialized, or one dropped from the outbound buffer before it was sent. Allocated
 * only on those failure paths.
 *
 * @param description what the message was (its class, or its serializer id)
 * @param bytes its serialized size
 * @param peer the node it came from or was going to (escaped for logs)
 */
public record UndeliveredRemoteMessage(String description, int bytes, String peer) {

    static UndeliveredRemoteMessage of(int serializerId, int bytes, String peer) {
        return new UndeliveredRemoteMessage("serializer " + serializerId, bytes, LogText.escape(peer));
    }

    @Override
    public String toString() {
        return "remote message (" + description + ", " + bytes + " bytes, peer " + peer + ")";
    }
}
