package dev.troupe.actor;

/**
 * The kind of mailbox an actor gets unless its props say otherwise.
 *
 * @param capacity 0 for an unbounded mailbox, else the most messages waiting; overflow
 *                 goes to dead letters as {@code mailbox-full}
 * @param initialCapacity for an unbounded mailbox, the size of its first ring; the ring doubles
 *                        when a backlog fills it and keeps its size, so a mailbox that has seen
 *                        its largest backlog allocates nothing more
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

    /** @return an unbounded mailbox starting with room for 16 messages */
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
