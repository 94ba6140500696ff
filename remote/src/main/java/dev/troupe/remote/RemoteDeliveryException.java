package dev.troupe.remote;

import dev.troupe.actor.DeadLetterReason;

/**
 * The node a request went to could not deliver it, and said so: an ask whose request it was fails
 * with this at once instead of timing out. {@link #reason()} is the reason that node counted the
 * message under as a dead letter there: {@code unknown-recipient} (nothing is published at
 * {@link #recipient()} there), {@code type-mismatch} (the actor there accepts another class),
 * {@code no-serializer} (that node has no serializer for {@link #messageType()}, or does not allow
 * the class) or {@code serialization-failed} (it could not deserialize it).
 */
public final class RemoteDeliveryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String address;
    private final transient DeadLetterReason reason;
    private final String recipient;
    private final String messageType;

    /**
     * @param address the node that reported it, {@code system@host:port}
     * @param reason why it could not deliver the message
     * @param recipient the path the message was sent to, as that node names it
     * @param messageType the message's class (or {@code serializer <id>} for a serializer without manifest)
     */
    public RemoteDeliveryException(String address, DeadLetterReason reason, String recipient, String messageType) {
        super(address + " could not deliver a " + messageType + " to " + recipient + ": " + reason.tag() + " (" + explain(reason) + ")");
        this.address = address;
        this.reason = reason;
        this.recipient = recipient;
        this.messageType = messageType;
    }

    private static String explain(DeadLetterReason reason) {
        switch (reason) {
            case UNKNOWN_RECIPIENT:
                return "no actor is published at that path there, or the ref it was sent to is gone";
            case TYPE_MISMATCH:
                return "the actor there accepts another message class";
            case NO_SERIALIZER:
                return "that node has no serializer for the class, or it is not on that node's allow-list";
            default:
                return "that node could not deserialize it; with Jackson the class needs a usable creator (a record, or a"
                    + " constructor Jackson can call)";
        }
    }

    /** @return the node that reported the failure, {@code system@host:port} */
    public String address() {
        return address;
    }

    /** @return why that node could not deliver the message */
    public DeadLetterReason reason() {
        return reason;
    }

    /** @return the path the message was sent to */
    public String recipient() {
        return recipient;
    }

    /** @return the message's class name, as that node knows it */
    public String messageType() {
        return messageType;
    }
}
