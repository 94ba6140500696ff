package dev.troupe.actor;

import java.util.Objects;

/**
 * Where and how an actor runs: its dispatcher, its mailbox, and whether it gets its own
 * meters. Immutable; {@link #empty()} means the system's defaults.
 */
public final class Props {

    private static final Props EMPTY = new Props(null, false, -1, false);

    private final String dispatcher;
    private final boolean pinned;
    private final int mailboxCapacity;
    private final boolean metrics;

    private Props(String dispatcher, boolean pinned, int mailboxCapacity, boolean metrics) {
        this.dispatcher = dispatcher;
        this.pinned = pinned;
        this.mailboxCapacity = mailboxCapacity;
        this.metrics = metrics;
    }

    /** @return the defaults: the default dispatcher and mailbox, no per-actor meters */
    public static Props empty() {
        return EMPTY;
    }

    /**
     * @param name a dispatcher configured in {@link ActorSystemSettings}
     * @return these props on that dispatcher
     */
    public Props withDispatcher(String name) {
        return new Props(Objects.requireNonNull(name, "name"), false, mailboxCapacity, metrics);
    }

    /** @return these props on a thread of the actor's own, for blocking or latency-critical actors */
    public Props withPinnedDispatcher() {
        return new Props(null, true, mailboxCapacity, metrics);
    }

    /**
     * @param capacity the most messages waiting; overflow goes to dead letters as {@code mailbox-full}
     * @return these props with a bounded mailbox
     * @throws InvalidSettingException if not positive
     */
    public Props withBoundedMailbox(int capacity) {
        if (capacity <= 0) {
            throw new InvalidSettingException("Props.withBoundedMailbox", "capacity must be positive, was " + capacity);
        }
        return new Props(dispatcher, pinned, capacity, metrics);
    }

    /** @return these props with an unbounded mailbox, whatever the system default is */
    public Props withUnboundedMailbox() {
        return new Props(dispatcher, pinned, 0, metrics);
    }

    /**
     * Gives the actor its own meters, tagged with its name. Use it for long-lived, named
     * actors only: per-actor tags on short-lived or numerous actors multiply series.
     *
     * @return these props with per-actor meters
     */
    public Props withMetrics() {
        return new Props(dispatcher, pinned, mailboxCapacity, true);
    }

    /** @return the dispatcher name, or null for the default */
    public String dispatcher() {
        return dispatcher;
    }

    /** @return whether the actor gets a thread of its own */
    public boolean pinned() {
        return pinned;
    }

    /** @return the bounded mailbox capacity, 0 for unbounded, -1 for the system default */
    public int mailboxCapacity() {
        return mailboxCapacity;
    }

    /** @return whether the actor has its own meters */
    public boolean metrics() {
        return metrics;
    }

    @Override
    public String toString() {
        return "Props(dispatcher=" + (pinned ? "pinned" : dispatcher == null ? "default" : dispatcher)
            + ", mailbox=" + (mailboxCapacity < 0 ? "default" : mailboxCapacity == 0 ? "unbounded" : "bounded(" + mailboxCapacity + ")")
            + ", metrics=" + metrics + ")";
    }
}
