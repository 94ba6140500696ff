package dev.troupe.actor;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where undeliverable messages go. Every dead letter is counted by reason; subscribers
 * see each one; a bounded sample of the most recent is kept; and a rate-limited log line
 * reports them. Publishing is thread-safe.
 */
public interface DeadLetters {

    /**
     * @param reason a reason
     * @return how many dead letters had that reason since the system started
     */
    long count(DeadLetterReason reason);

    /** @return the total number of dead letters since the system started */
    long total();

    /**
     * @param subscriber called on the publishing thread for every dead letter; must be quick and not throw
     * @return closing it unsubscribes
     */
    AutoCloseable subscribe(Consumer<DeadLetter> subscriber);

    /** @return the most recent dead letters, oldest first, at most {@link #sampleCapacity()} */
    List<DeadLetter> recent();

    /** @return how many recent dead letters are kept */
    int sampleCapacity();

    /**
     * Records a dead letter. The runtime calls this; transports and integrations may too.
     *
     * @param message the message
     * @param recipient the intended recipient, or null
     * @param reason why it was not delivered
     */
    void publish(Object message, ActorPath recipient, DeadLetterReason reason);
}
