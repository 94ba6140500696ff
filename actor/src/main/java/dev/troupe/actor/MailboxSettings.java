package dev.troupe.actor;

/**
 * The kind of mailbox an actor gets unless its props say otherwise.
 *
 * @param capacity 0 for an unbounded mailbox, else the most messages waiting; overflow
 *                 goes to dead letters as {@code mailbox-full}
 * @param chunkSize for an unbounded mailbox, the size of the array chunks it grows by;
 *                  chunks are recycled, so a mailbox in steady state allocates nothing
 */
public record MailboxSettings(int capacity, int chunkSize) {

    /** Validates the settings. */
    public MailboxSettings {
        if (capacity < 0) {
            throw new IllegalArgumentException("mailbox capacity must not be negative: " + capacity);
        }
        if (chunkSize < 2) {
            throw new IllegalArgumentException("mailbox chunk size must be at least 2: " + chunkSize);
        }
    }

    /** @return an unbounded mailbox growing by chunks of 64 messages */
    public static MailboxSettings unbounded() {
        return new MailboxSettings(0, 64);
    }

    /**
     * @param capacity the most messages waiting
     * @return a bounded mailbox
     */
    public static MailboxSettings bounded(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("bounded mailbox capacity must be positive: " + capacity);
        }
        return new MailboxSettings(capacity, 64);
    }

    /** @return whether the mailbox is bounded */
    public boolean isBounded() {
        return capacity > 0;
    }
}
