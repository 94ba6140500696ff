package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.remote.FrameRejection;
import dev.troupe.remote.Serializer;

import java.util.Arrays;

/**
 * The compression table of one inbound connection, filled by the peer's ADVERTISE frames: id to
 * recipient (resolved once, at ADVERTISE time, with the class a local recipient accepts), id to
 * remote ref (a path on the sending node or a third one), id to allowed message class; and the
 * peer's {@link Protocol#EPHEMERAL_SLOTS} reusable slots for temporary refs. It is also the
 * {@link Serializer.RefResolver} serializers read refs through, and it names the sender as the
 * connection's handshake authenticated it.
 *
 * <p>Bounded: ids above {@code maxCompressionEntries} and slots beyond {@link Protocol#EPHEMERAL_SLOTS}
 * are {@code compression-limit}; in bytes, every entry, slot and array growth is charged to the
 * association's {@link PeerMemory} (and the node's) before it is kept, and released when it is
 * replaced or the connection closes ({@link #release}): beyond the budget, {@code memory-limit}.
 * Lookups allocate nothing; an ADVERTISE allocates what it resolves.
 * Event-loop confined (the connection's): plain fields.
 */
final class InboundTable implements Serializer.RefResolver {

    private final TransportCore core;
    private final Association association;
    private final long peerUid;
    private final int maxIds;

    private InternalActorRef<?>[] refs = new InternalActorRef<?>[64];
    /** Per ref id: the class a local recipient accepts (Object: anything), or null for a ref that is not a local recipient. */
    private Class<?>[] accepts = new Class<?>[64];
    /** The peer's ephemeral slots (Protocol.EPHEMERAL_ID), made at the first one it advertises. */
    private InternalActorRef<?>[] ephemeralRefs;
    private Class<?>[] ephemeralAccepts;
    private Class<?>[] manifests = new Class<?>[16];
    /** Class names advertised but not allowed here, for failure notices and logs (refused ids only). */
    private String[] refusedManifests = new String[16];
    /** What each ref id's entry costs the peer's budget (released when the id is advertised again). */
    private int[] costs = new int[64];
    private int[] ephemeralCosts;
    /** Everything this table charged to the peer's budget: released when the connection closes. */
    private long charged;
    private final PeerMemory memory;

    InboundTable(TransportCore core, Association association, long peerUid) {
        this.core = core;
        this.association = association;
        this.peerUid = peerUid;
        this.maxIds = core.settings.maxCompressionEntries();
        this.memory = association.memory;
        charge(PeerMemory.SLOT * (64L + 16) + 4 * 64L, "a compression table"); // the arrays as made
    }

    private void charge(long bytes, String what) {
        memory.charge(bytes, what); // throws memory-limit
        charged += bytes;
    }

    private void release(long bytes) {
        memory.release(bytes);
        charged -= bytes;
    }

    /** The connection closed: everything the table held goes, and so does its charge. */
    void release() {
        memory.release(charged);
        charged = 0;
    }

    // ---------------------------------------------------------------- lookups (the message path)

    /** @return the ref at an id or slot, or null if it was never advertised */
    @SuppressWarnings("unchecked")
    InternalActorRef<Object> refAt(int id) {
        if ((id & Protocol.EPHEMERAL_ID) != 0) {
            final int slot = id & ~Protocol.EPHEMERAL_ID;
            final InternalActorRef<?>[] e = ephemeralRefs;
            return e != null && slot < e.length ? (InternalActorRef<Object>) e[slot] : null;
        }
        return id > 0 && id < refs.length ? (InternalActorRef<Object>) refs[id] : null;
    }

    /** @return the class the recipient at a (known) id accepts, or null for a path on another node */
    Class<?> acceptsAt(int id) {
        return (id & Protocol.EPHEMERAL_ID) != 0 ? ephemeralAccepts[id & ~Protocol.EPHEMERAL_ID] : accepts[id];
    }

    /** @return the allowed class a manifest id names, or null (never advertised, or not allowed here) */
    Class<?> manifestAt(int mid) {
        return mid > 0 && mid < manifests.length ? manifests[mid] : null;
    }

    /** @return the class name a manifest id was advertised with, or a placeholder (the failure path) */
    String manifestName(int mid) {
        if (mid > 0 && mid < manifests.length && manifests[mid] != null) {
            return manifests[mid].getName();
        }
        if (mid > 0 && mid < refusedManifests.length && refusedManifests[mid] != null) {
            return refusedManifests[mid];
        }
        return mid == 0 ? "-" : "manifest " + mid;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <M> ActorRef<M> resolve(int id) {
        if (id == 0) {
            return null;
        }
        final InternalActorRef<?> r = refAt(id);
        if (r == null) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "ref id " + id + " inside a message was never advertised");
        }
        return (ActorRef<M>) r;
    }

    @Override
    public ActorPath senderAddress() {
        return association.root;
    }

    @Override
    public long senderUid() {
        return peerUid;
    }

    // ---------------------------------------------------------------- ADVERTISE

    /**
     * An ADVERTISE from the peer: a path is parsed with the wire's bounds and resolved once
     * ({@link ExportedRefs#inboundRef}); a class name is loaded only if a serializer allows it.
     *
     * @throws FrameRejectedException {@code compression-limit}, {@code path-too-long} or {@code malformed-frame}
     */
    void advertise(Frames.Advertise a) {
        final int id = a.id();
        if ((id & Protocol.EPHEMERAL_ID) != 0) {
            advertiseEphemeral(a, id & ~Protocol.EPHEMERAL_ID);
            return;
        }
        if (id > maxIds) {
            throw new FrameRejectedException(FrameRejection.COMPRESSION_LIMIT, "id " + id + " above the limit of " + maxIds);
        }
        if (a.kind() == Protocol.KIND_ACTOR_PATH) {
            final ActorPath path = parseAddressedPath(a.text());
            if (id >= refs.length) {
                final int n = Math.min(maxIds + 1, Math.max(id + 1, refs.length * 2));
                charge((long) (n - refs.length) * (PeerMemory.SLOT + 4), "compression table growth to " + n + " ids");
                refs = Arrays.copyOf(refs, n);
                accepts = Arrays.copyOf(accepts, n);
                costs = Arrays.copyOf(costs, n);
            }
            final ExportedRefs.Recipient recipient = core.exports.inboundRef(path, association, peerUid);
            // a local published actor exists anyway; a remote ref or a stand-in is made for this entry
            final int cost = recipient.accepts() != null && !(recipient.ref() instanceof MissingRecipient)
                ? 0 : (int) Math.min(Integer.MAX_VALUE, PeerMemory.REF + PeerMemory.path(path, a.text().length()));
            if (costs[id] != 0) {
                release(costs[id]);
                costs[id] = 0;
            }
            charge(cost, "advertised path " + id);
            costs[id] = cost;
            refs[id] = recipient.ref();
            accepts[id] = recipient.accepts();
        } else {
            if (id >= manifests.length) {
                final int n = Math.min(maxIds + 1, Math.max(id + 1, manifests.length * 2));
                charge((long) (n - manifests.length) * PeerMemory.SLOT, "manifest table growth to " + n + " ids");
                manifests = Arrays.copyOf(manifests, n);
            }
            manifests[id] = core.settings.serializers().manifestClass(a.text());
            if (manifests[id] == null) {
                if (id >= refusedManifests.length) {
                    refusedManifests = Arrays.copyOf(refusedManifests, manifests.length);
                }
                final String kept = a.text().length() > Protocol.MAX_FAILURE_TEXT ? a.text().substring(0, Protocol.MAX_FAILURE_TEXT) : a.text();
                if (refusedManifests[id] != null) {
                    release(PeerMemory.text(refusedManifests[id].length()));
                }
                refusedManifests[id] = null;
                charge(PeerMemory.text(kept.length()), "refused class name " + id);
                refusedManifests[id] = kept;
                core.rejections.reject(FrameRejection.UNKNOWN_MANIFEST, association.address, "class " + a.text() + " is not on the allow-list");
                core.failures.logNotAllowed(association.address, a.text());
            } else if (id < refusedManifests.length && refusedManifests[id] != null) {
                release(PeerMemory.text(refusedManifests[id].length()));
                refusedManifests[id] = null;
            }
        }
    }

    /**
     * A temporary ref of the peer (an ask's reply-to ref) or one of this node's that the peer
     * replies to, in a slot the peer reuses: the slot takes the newest path. Bounded by
     * {@link Protocol#EPHEMERAL_SLOTS} per connection; allocates (once per ask, as the ask does).
     */
    private void advertiseEphemeral(Frames.Advertise a, int slot) {
        if (slot >= Protocol.EPHEMERAL_SLOTS) {
            throw new FrameRejectedException(FrameRejection.COMPRESSION_LIMIT, "ephemeral slot " + slot + " above the limit of "
                + Protocol.EPHEMERAL_SLOTS);
        }
        if (a.kind() != Protocol.KIND_ACTOR_PATH) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "ephemeral slot " + slot + " advertised for kind " + a.kind());
        }
        final ActorPath path = parseAddressedPath(a.text());
        if (ephemeralRefs == null) {
            charge((long) Protocol.EPHEMERAL_SLOTS * (PeerMemory.SLOT + 4), "ephemeral slots");
            ephemeralRefs = new InternalActorRef<?>[Protocol.EPHEMERAL_SLOTS];
            ephemeralAccepts = new Class<?>[Protocol.EPHEMERAL_SLOTS];
            ephemeralCosts = new int[Protocol.EPHEMERAL_SLOTS];
        }
        final ExportedRefs.Recipient recipient = core.exports.inboundRef(path, association, peerUid);
        final int cost = (int) Math.min(Integer.MAX_VALUE, PeerMemory.REF + PeerMemory.path(path, a.text().length()));
        if (ephemeralCosts[slot] != 0) {
            release(ephemeralCosts[slot]);
            ephemeralCosts[slot] = 0;
        }
        charge(cost, "ephemeral slot " + slot);
        ephemeralCosts[slot] = cost;
        ephemeralRefs[slot] = recipient.ref();
        ephemeralAccepts[slot] = recipient.accepts();
    }

    private ActorPath parseAddressedPath(String text) {
        final ActorPath path = core.addresses.parseWirePath(text);
        if (!path.hasAddress()) {
            throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "advertised path without an address: " + text);
        }
        return path;
    }
}
