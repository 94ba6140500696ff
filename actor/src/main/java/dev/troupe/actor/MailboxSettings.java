package dev.troupe.actor;

/**
 * The kind of mailbox an actor gets unless its props say otherwise.
 *
 * @param capacity 0 for an unbounded mailbox, else the most messages waiting; overflow
 *                 goes to dead letters as {@code mailbox-full}
 * @param initialCapacity the size of a mailbox's first ring, allocated with its first message
 *                        (for a bounded mailbox, at most its capacity rounded up to a power of
 *                        two); the ring doubles when a backlog fills it, so a mailbox that has
 *                        seen its largest backlog allocates nothing more, and it is given back
 *                        once the backlog has drained and a check a second later finds the room
 *                        unused (an actor whose bursts keep coming keeps a ring that holds them)
 */
public record MailboxSettings(int capacity, int initialCapacity) {

    /**
     * Validates the settings.
     *
     * @throws InvalidSettingException naming {@code MailboxSettings.capacity} or {@code MailboxSettings.initialCapacity}
     */
    public MailboxSettings {
        if (capacity < 0) {
            throw new InvalidSettingException("MailboxSettings.capacity", "must not be negative, was " + capacity);
        }
        if (initialCapacity < 2) {
            throw new InvalidSettingException("MailboxSettings.initialCapacity", "must be at least 2, was " + initialCapacity);
        }
    }

    /** @return an unbounded mailbox whose first ring, made with the first message, has room for 16 */
    public static MailboxSettings unbounded() {
        return new MailboxSettings(0, 16);
    }

    /**
     * @param capacity the most messages waiting
     * @return a bounded mailbox
     * @throws InvalidSettingException if not positive
     */
    public static MailboxSettings bounded(int capacity) {
        if (capacity <= 0) {
            throw new InvalidSettingException("MailboxSettings.bounded", "capacity must be positive, was " + capacity);
        }
        return new MailboxSettings(capacity, 16);
    }

    /** @return whether the mailbox is bounded */
    public boolean isBounded() {
        return capacity > 0;
    }
}
