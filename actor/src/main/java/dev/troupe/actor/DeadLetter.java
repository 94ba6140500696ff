package dev.troupe.actor;

/**
 * A message that could not be delivered.
 *
 * @param message the message
 * @param recipient the intended recipient's path, or null if unknown
 * @param reason why it was not delivered
 * @param timestampMillis when, in epoch milliseconds
 */
public record DeadLetter(Object message, ActorPath recipient, DeadLetterReason reason, long timestampMillis) {

    @Override
    public String toString() {
        return "DeadLetter(" + (message == null ? "null" : message.getClass().getName()) + " to " + recipient + ", " + reason + ")";
    }
}
