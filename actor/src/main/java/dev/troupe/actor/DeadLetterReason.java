package dev.troupe.actor;

/**
 * Why a message could not be delivered. A closed set, so the {@code reason} tag of the
 * dead-letter meter has a bounded number of values.
 */
public enum DeadLetterReason {
    /** The recipient had stopped. */
    STOPPED("stopped"),
    /** The actor system had terminated. */
    TERMINATED("terminated"),
    /** The recipient's bounded mailbox was full. */
    MAILBOX_FULL("mailbox-full"),
    /** The recipient's behavior did not handle the message. */
    UNHANDLED("unhandled"),
    /**
     * The message is not of the class the recipient's behavior accepts
     * ({@code Behaviors.receive(Class)}); only an unchecked cast or a raw ref can send one.
     */
    WRONG_TYPE("wrong-type"),
    /** The application was shutting down and the message was not processed in time. */
    SHUTDOWN("shutdown"),
    /** A reply arrived after its ask had timed out, or a request was not sent to another node because its ask had timed out. */
    ASK_EXPIRED("ask-expired"),
    /** No serializer is registered for the message's type. */
    NO_SERIALIZER("no-serializer"),
    /** The outbound buffer to the recipient's node was full. */
    OUTBOUND_OVERFLOW("outbound-overflow"),
    /** The recipient's node is not reachable, or no actor lives at the recipient's path. */
    UNKNOWN_RECIPIENT("unknown-recipient"),
    /** The message could not be serialized or deserialized. */
    SERIALIZATION_FAILED("serialization-failed"),
    /** A router had no routees to send the message to. */
    NO_ROUTEES("no-routees"),
    /** A message from another node was not of the recipient's declared message type. */
    TYPE_MISMATCH("type-mismatch"),
    /** A message queued for one incarnation of a node was not sent because the node restarted meanwhile. */
    PEER_RESTARTED("peer-restarted"),
    /** A message waited longer than the transport's maximum queue time for its node and was not sent. */
    OUTBOUND_EXPIRED("outbound-expired"),
    /** No owner of the message's shard could be reached (unreachable, unknown, or no member with the role) and the shard region's buffer was full, or the region stopped while holding it. */
    SHARD_UNAVAILABLE("shard-unavailable"),
    /** The message's shard or entity was being handed off or passivated and the shard region's buffer was full. */
    HANDOFF_BUFFER_FULL("handoff-buffer-full"),
    /** The sharded entity could not be started (its behavior factory failed). */
    ENTITY_STOPPED("entity-stopped"),
    /** A persistent entity's stash was full while a write or recovery was in flight (troupe-persistence). */
    STASH_OVERFLOW("stash-overflow");

    private final String tag;

    DeadLetterReason(String tag) {
        this.tag = tag;
    }

    /** @return the reason as a lowercase tag value, such as {@code mailbox-full} */
    public String tag() {
        return tag;
    }

    @Override
    public String toString() {
        return tag;
    }
}
