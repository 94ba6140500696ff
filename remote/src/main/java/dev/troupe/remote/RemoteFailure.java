package dev.troupe.remote;

import dev.troupe.actor.DeadLetterReason;

import java.time.Instant;

/**
 * A message this node sent that the receiving node could not deliver, as that node reported it
 * (see {@link RemoteTransport#recentFailures()}). The texts come from the other node and are cut
 * to 512 bytes.
 *
 * @param time when the report arrived
 * @param peer the node that reported it, {@code system@host:port}
 * @param reason why it could not deliver the message (a dead letter there with this reason)
 * @param recipient the path the message was sent to
 * @param messageType the message's class name
 * @param ask whether the message was a request of an ask that this report failed at once
 */
public record RemoteFailure(Instant time, String peer, DeadLetterReason reason, String recipient, String messageType, boolean ask) {
}
