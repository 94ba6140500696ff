package dev.troupe.actor;

/**
 * Why a message could not be delivered. A closed set, so the {@code reason} tag of the
 * dead-letter meter has a bounded number of values. Each reason carries its tag value and a
 * sentence saying what happened ({@link #description()}); the reference's page of dead-letter
 * reasons is rendered from them.
 */
public enum DeadLetterReason {
    STOPPED("The recipient had stopped."),
    TERMINATED("The actor system had terminated."),
    MAILBOX_FULL("The recipient's bounded mailbox was full."),
    UNHANDLED("The recipient's behavior did not handle the message."),
    WRONG_TYPE("The message is not of the class the recipient's behavior accepts (Behaviors.receive(Class)); only an unchecked cast or a raw ref can send one."),
    SHUTDOWN("The application was shutting down and the message was not processed in time."),
    ASK_EXPIRED("A reply arrived after its ask had timed out, or a request was not sent to another node because its ask had timed out."),
    NO_SERIALIZER("No serializer is registered for the message's type."),
    OUTBOUND_OVERFLOW("The outbound buffer to the recipient's node was full."),
    MEMORY_LIMIT("The outbound buffer to the recipient's node needed to grow and the node-wide budget of what peers make the node hold (maxRemoteMemory) had no room."),
    UNKNOWN_RECIPIENT("The recipient's node is not reachable, or no actor lives at the recipient's path."),
    SERIALIZATION_FAILED("The message could not be serialized or deserialized."),
    NO_ROUTEES("A router had no routees to send the message to."),
    TYPE_MISMATCH("A message from another node was not of the recipient's declared message type."),
    PEER_RESTARTED("A message queued for one incarnation of a node was not sent because the node restarted meanwhile."),
    OUTBOUND_EXPIRED("A message waited longer than the transport's maximum queue time for its node and was not sent."),
    SHARD_UNAVAILABLE("No owner of the message's shard could be reached (unreachable, unknown, or no member with the role) and the shard region's buffer was full, or the region stopped while holding it."),
    HANDOFF_BUFFER_FULL("The message's shard or entity was being handed off or passivated and the shard region's buffer was full."),
    ENTITY_STOPPED("The sharded entity could not be started (its behavior factory failed)."),
    STASH_OVERFLOW("A persistent entity's stash was full while a write or recovery was in flight (troupe-persistence).");

    private final String tag;
    private final String description;

    DeadLetterReason(String description) {
        this.tag = tagOf(name());
        this.description = description;
    }

    /**
     * @param constant an enum constant's name, such as {@code MAILBOX_FULL}
     * @return it as a tag value: lowercase, words joined by hyphens ({@code mailbox-full}); the
     *     tag values of every closed set of reasons (this one, {@code PersistenceFailure}) are made so
     */
    public static String tagOf(String constant) {
        return constant.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** @return the reason as a lowercase tag value, such as {@code mailbox-full} */
    public String tag() {
        return tag;
    }

    /**
     * @return what happened to the message, in a sentence; the reference's list of dead-letter
     *     reasons is generated from these
     */
    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return tag;
    }
}
