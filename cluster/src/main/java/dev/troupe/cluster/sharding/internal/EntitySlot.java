package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;

/**
 * One running entity as its region and every sender see it: the entity's ref plus a gate that
 * lets senders tell the entity directly, from any thread, without passing through the region.
 *
 * <p>The gate is a count of senders inside it and a CLOSED bit, in one int. A sender
 * ({@link #tellIfOpen}) enters (one {@code getAndAdd}), tells the entity, and leaves (another); the
 * region {@link #close}s it to passivate or hand off the entity. Whoever brings a closed gate's
 * count to zero (the region itself, or the last sender inside) wins one CAS to DONE and tells the
 * region the slot is drained: from then on every message a sender told directly is already in
 * the entity's mailbox, so the stop message the region sends next arrives after all of them, and
 * every later message goes through the region (which holds it until the entity has stopped).
 * That is what makes one hop (entity ref to entity) safe against passivation and hand-off
 * without a lock and without an envelope. Senders that find the gate closed take the slow path.
 *
 * <p>Many senders, one region thread. The fields below the gate are the region's own. What only
 * an entity being stopped needs lives in a {@link Stopping}, made when the gate closes, so a
 * running entity's slot is 48 bytes. Public only so that an entity ref can remember the slot it
 * last told through ({@link ShardRouter#tell}); everything it offers is this package's.
 */
public final class EntitySlot {

    private static final int CLOSED = 1 << 30;
    private static final int DONE = 1 << 29;
    private static final int COUNT = DONE - 1;
    private static final VarHandle STATE;
    private static final VarHandle LAST_USE;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(EntitySlot.class, "state", int.class);
            LAST_USE = l.findVarHandle(EntitySlot.class, "lastUse", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * An entity being stopped: made by the region when it closes the gate, and told to the region
     * as the drained signal. Region thread only, but for {@link #region}, read by the completer.
     */
    static final class Stopping {
        final EntitySlot slot;
        /** Where the drained signal goes; null when the entity is already dead (no signal). */
        final ActorRef<Object> region;
        final long closedAtNanos;
        /** Messages that reached the region while the gate was closed, for the entity's next incarnation or the shard's new owner. */
        ArrayDeque<Object> pending;
        boolean forcedStop;
        boolean terminated;

        Stopping(EntitySlot slot, ActorRef<Object> region, long closedAtNanos) {
            this.slot = slot;
            this.region = region;
            this.closedAtNanos = closedAtNanos;
        }
    }

    final String entityId;
    final int shard;
    final ActorRef<Object> ref;
    @SuppressWarnings("unused") // through STATE
    private volatile int state;
    /** When a message last reached the entity: nanoTime (exact with an active-entity limit) or the region's clock. Opaque. */
    @SuppressWarnings("unused") // through LAST_USE
    private long lastUse;
    /** Null while the entity runs; written before the CLOSED bit, so every completer sees it. */
    Stopping stopping;

    // ---- region thread only ----
    /** The shard's list of entities. */
    EntitySlot prev;
    EntitySlot next;

    EntitySlot(String entityId, int shard, ActorRef<Object> ref, long now) {
        this.entityId = entityId;
        this.shard = shard;
        this.ref = ref;
        LAST_USE.setOpaque(this, now);
    }

    /**
     * Any thread: passes the gate unless it is closed.
     *
     * @return whether the caller may tell the entity directly; if so it must call {@link #exit} after
     */
    private boolean enter() {
        final int s = (int) STATE.getAndAdd(this, 1);
        if ((s & CLOSED) == 0) {
            return true;
        }
        exit();
        return false;
    }

    /**
     * Any thread: tells the entity through the gate, stamping its last use: enter, stamp, tell,
     * leave. One sender's direct messages reach the mailbox before the stop message the region
     * sends once the closed gate has drained.
     *
     * @param message the entity's message
     * @param now the sender's clock
     * @return false if the gate is closed: the message was not told (the caller goes through the region)
     */
    boolean tellIfOpen(Object message, long now) {
        if (!enter()) {
            return false;
        }
        try {
            touch(now);
            ref.tell(message);
        } finally {
            exit();
        }
        return true;
    }

    /** Any thread: leaves the gate after {@link #enter} (also when enter failed: it does so itself). */
    private void exit() {
        final int s = (int) STATE.getAndAdd(this, -1);
        if (s == (CLOSED | 1)) {
            complete();
        }
    }

    /**
     * Region thread: closes the gate. Once every sender inside has left, the {@link Stopping} is
     * told to its region, exactly once.
     *
     * @param region where the drained signal goes
     * @param now the region's clock
     * @return the stopping record
     */
    Stopping close(ActorRef<Object> region, long now) {
        final Stopping st = new Stopping(this, region, now);
        stopping = st;
        final int s = (int) STATE.getAndAdd(this, CLOSED);
        if ((s & COUNT) == 0) {
            complete();
        }
        return st;
    }

    /** Region thread: the entity stopped by itself while the gate was open; close it without a drained signal. */
    Stopping closeDead(long now) {
        final Stopping st = new Stopping(this, null, now);
        stopping = st;
        STATE.getAndAdd(this, CLOSED | DONE);
        return st;
    }

    private void complete() {
        if (STATE.compareAndSet(this, CLOSED, CLOSED | DONE)) {
            final Stopping st = stopping;
            if (st != null && st.region != null) {
                st.region.tell(st);
            }
        }
    }

    /** @return whether the gate is open (the entity runs and is not being stopped) */
    boolean isOpen() {
        return ((int) STATE.getVolatile(this) & CLOSED) == 0;
    }

    /** @param now the sender's clock */
    private void touch(long now) {
        // Skip the store when the coarse clock has not moved: the line stays shared among senders.
        if ((long) LAST_USE.getOpaque(this) != now) {
            LAST_USE.setOpaque(this, now);
        }
    }

    /** @return when a message last reached the entity */
    long lastUse() {
        return (long) LAST_USE.getOpaque(this);
    }

    @Override
    public String toString() {
        return "EntitySlot(" + entityId + ", shard " + shard + ", " + (isOpen() ? "open" : "closed") + ")";
    }
}
