package dev.troupe.cluster.sharding.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.internal.RegionProtocol.EntityEnvelope;
import dev.troupe.cluster.sharding.internal.RegionProtocol.LocalEnvelope;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.Set;

/**
 * One shard as this node sees it: where it stands in the release protocol, its running and
 * stopping entities (a doubly linked list through their slots), the messages held for it while it
 * moves or its owner cannot be reached, and the passivation of its idle entities.
 *
 * <p>Its state, on this node:
 * <pre>
 *   IDLE ──(view: mine)──> ACQUIRING ──(every other member with the role released it)──> HOSTING
 *     ^                        │ (view: not mine)                                           │ (view: not mine)
 *     └────────────────────────┴──────────── HANDING_OFF <──────────────────────────────────┘
 *                                  (all its entities stopped: held messages go to the owner, then the releases)
 * </pre>
 * {@link ShardOwnership} moves it between the states (and owns the protocol's fields below);
 * the region routes by it. Region thread only.
 */
final class Shard {

    static final int IDLE = 0;
    static final int ACQUIRING = 1;
    static final int HOSTING = 2;
    static final int HANDING_OFF = 3;
    static final String[] STATE_NAMES = {"idle", "acquiring", "hosting", "handing-off"};

    final int id;
    int state = IDLE;

    // ---- the release protocol's (ShardOwnership) ----
    /** The current acquisition attempt; an answer for another is ignored. */
    long epoch;
    /** While ACQUIRING: the members whose release is missing. */
    Set<Address> awaiting;
    /** Requests to release the shard waiting for this node to let go: member to the epoch it asked for. */
    Map<Address, Long> deferred;
    long handOffStartNanos;

    // ---- its entities and held messages ----
    private final ShardHost host;
    /** The running and stopping entities, linked through their slots. */
    private EntitySlot head;
    /** Messages held for the shard, as envelopes (not for one entity being stopped: those wait in its slot). */
    private ArrayDeque<Object> buffer;

    Shard(int id, ShardHost host) {
        this.id = id;
        this.host = host;
    }

    /**
     * Starts an entity of this shard (making room under the active-entity limit first).
     *
     * @return its slot, published to the senders; null if the behavior factory failed
     */
    EntitySlot startEntity(String entityId) {
        final EntitySlot slot = host.start(this, entityId);
        if (slot != null) {
            slot.next = head;
            if (head != null) {
                head.prev = slot;
            }
            head = slot;
        }
        return slot;
    }

    /** The entity of this slot stopped: it leaves the list. */
    void unlink(EntitySlot slot) {
        if (slot.prev != null) {
            slot.prev.next = slot.next;
        } else if (head == slot) {
            head = slot.next;
        }
        if (slot.next != null) {
            slot.next.prev = slot.prev;
        }
        slot.prev = null;
        slot.next = null;
    }

    /** @return the first of the running and stopping entities (then {@link EntitySlot#next}), or null */
    EntitySlot firstEntity() {
        return head;
    }

    /** @return whether no entity of the shard runs or is being stopped here */
    boolean hasNoEntities() {
        return head == null;
    }

    /** Closes every open entity's gate (the hand-off): each gets its stop message after what was told to it. */
    void closeEntities(long now) {
        for (EntitySlot s = head; s != null; s = s.next) {
            if (s.isOpen()) {
                host.close(s, now);
            }
        }
    }

    /** Passivates the entities idle for the passivation time (only while hosting) and stops those that ignored their stop message. */
    void tick(long now) {
        for (EntitySlot s = head; s != null; s = s.next) {
            if (s.isOpen()) {
                if (state == HOSTING && host.isIdle(s, now)) {
                    host.passivate(s, now);
                }
            } else {
                host.stopIfOverdue(s, now);
            }
        }
    }

    /**
     * Holds a message for the shard, behind those held before, if the region's bound allows.
     *
     * @param hops the forwards it has made so far
     * @param item the envelope it came in ({@link EntityEnvelope} or {@link LocalEnvelope}), held as
     *             is when it fits; null when it came without one
     * @return false when the region holds as much as it may (the caller makes it a dead letter)
     */
    boolean hold(String entityId, Object message, int hops, Object item) {
        if (!host.mayHold()) {
            return false;
        }
        if (buffer == null) {
            buffer = new ArrayDeque<>();
        }
        buffer.add(envelope(entityId, message, hops, item));
        host.held();
        return true;
    }

    /**
     * Holds a message for an entity being stopped, in its own queue (its order holds), if the region's bound allows.
     *
     * @return false when the region holds as much as it may
     */
    boolean holdForEntity(EntitySlot slot, String entityId, Object message, Object item) {
        if (!host.mayHold()) {
            return false;
        }
        final EntitySlot.Stopping st = slot.stopping;
        if (st.pending == null) {
            st.pending = new ArrayDeque<>();
        }
        st.pending.add(envelope(entityId, message, 0, item));
        host.held();
        return true;
    }

    /** @return the item itself when it is the envelope to hold, else a new one */
    private static Object envelope(String entityId, Object message, int hops, Object item) {
        if (item instanceof LocalEnvelope || (item instanceof EntityEnvelope e && e.hops() == hops)) {
            return item;
        }
        return new EntityEnvelope(entityId, message, hops);
    }

    /** @return whether messages are held for the shard */
    boolean hasHeld() {
        return buffer != null && !buffer.isEmpty();
    }

    /** @return the next held message, no longer counted as held, or null */
    Object pollHeld() {
        final ArrayDeque<Object> b = buffer;
        final Object item = b == null ? null : b.poll();
        if (item != null) {
            host.released();
        }
        return item;
    }

    /**
     * @return the held messages, in order, taken from the shard (each still counted as held until
     *         the caller, going through them, calls {@link ShardHost#released}); null if none
     */
    ArrayDeque<Object> takeHeld() {
        final ArrayDeque<Object> held = buffer;
        buffer = null;
        return held;
    }

    @Override
    public String toString() {
        return "Shard(" + id + ", " + STATE_NAMES[state] + ")";
    }
}
