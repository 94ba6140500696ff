package dev.troupe.spring.metrics;

/**
 * Every meter Troupe registers, with its type, base unit, tags and description. The
 * binders take names and descriptions from here, and the documentation's meter table is
 * this list.
 *
 * <p>Tags: {@code system} (the actor system's name) on every meter; {@code dispatcher} on
 * dispatcher and per-actor meters; {@code actor} only on per-actor meters, which exist only
 * for bean actors and actors spawned with {@code Props.withMetrics()}, so spawning many
 * children never adds series; {@code reason} on dead letters and rejected frames (closed
 * sets of values); {@code peer} and {@code direction} on remote meters (one peer value per
 * configured or contacted node); {@code status} and {@code kind} on cluster meters (closed sets),
 * {@code key} on receptionist entries (service keys this node registers or routes to, never keys
 * a peer named); {@code behavior} and {@code message} on allocation attribution (class simple names
 * of the code's behaviors and message types, at most 256 pairs, more under {@code other});
 * {@code type} on sharding meters (entity types this node initialized, never one a peer named).
 * Dead letters of sharding carry the reasons {@code shard-unavailable}, {@code handoff-buffer-full}
 * and {@code entity-stopped} on {@code troupe.dead.letters}. Persistence meters carry {@code size}
 * (a batch-size bucket, 12 values) and {@code reason} (the closed set of persistence failures).
 */
public enum TroupeMeter {

    ACTORS_LIVE("troupe.actors.live", Type.GAUGE, null, "system",
        "Actors alive now: spawned and not yet stopped, the runtime's guardians excluded"),
    ACTORS_SPAWNED("troupe.actors.spawned", Type.COUNTER, null, "system",
        "Actors spawned since the system started"),
    MAILBOX_BACKLOG("troupe.mailbox.backlog", Type.GAUGE, null, "system",
        "Messages waiting in all mailboxes of the system together"),
    DEAD_LETTERS("troupe.dead.letters", Type.COUNTER, null, "system, reason",
        "Messages that could not be delivered, by reason (stopped, terminated, mailbox-full, unhandled, shutdown, ask-expired, ...)"),
    MESSAGES_PROCESSED("troupe.messages.processed", Type.COUNTER, null, "system, dispatcher",
        "Messages processed by the dispatcher's actors"),
    PROCESSING_TIME("troupe.processing.time", Type.FUNCTION_TIMER, "seconds", "system, dispatcher",
        "Time actors spent processing messages, from sampled turns (one in 64 of each actor); count is the messages in those turns"),
    PROCESSING_SAMPLED("troupe.processing.sampled", Type.TIMER, "seconds", "system, dispatcher",
        "Mean per-message processing time of each sampled turn; percentiles with"
            + " management.metrics.distribution.percentiles-histogram.troupe.processing.sampled=true"),
    MAILBOX_WAIT("troupe.mailbox.wait", Type.FUNCTION_TIMER, "seconds", "system, dispatcher",
        "Time an actor with messages waited from being scheduled to running, sampled (one turn in 64 of each actor)"),
    DISPATCHER_UTILIZATION("troupe.dispatcher.utilization", Type.GAUGE, null, "system, dispatcher",
        "Share of the dispatcher's thread time spent busy since the previous read, 0 to 1"),
    DISPATCHER_THREADS("troupe.dispatcher.threads", Type.GAUGE, null, "system, dispatcher",
        "Threads of the dispatcher (for 'pinned', the live pinned actors)"),
    DISPATCHER_QUEUED("troupe.dispatcher.queued", Type.GAUGE, null, "system, dispatcher",
        "Actors scheduled and waiting for a thread of the dispatcher"),
    DISPATCHER_ALLOCATED("troupe.dispatcher.allocated", Type.COUNTER, "bytes", "system, dispatcher",
        "Bytes allocated on the heap by the dispatcher's threads (ThreadMXBean): the garbage the actors make"),
    ALLOCATION_PER_MESSAGE("troupe.allocation.per.message", Type.GAUGE, "bytes", "system, dispatcher",
        "Bytes allocated by the dispatcher's threads per message processed, over the messages since the previous reading once there are at least 1,000 of them (until then the previous reading; NaN before the first)"),
    ALLOCATION_BYTES("troupe.allocation.bytes", Type.COUNTER, "bytes", "system, behavior, message",
        "Bytes allocated in sampled turns (one in 256 per actor) by behavior and message type (class simple names, at most 256 pairs, the rest 'other'); behavior=remote-io is the transport's I/O threads, every byte"),
    ALLOCATION_MESSAGES("troupe.allocation.messages", Type.COUNTER, null, "system, behavior, message",
        "Messages processed in the sampled turns of troupe.allocation.bytes: rate(bytes) / rate(messages) is bytes per message; for remote-io, messages sent and received"),
    MAILBOX_SIZE("troupe.mailbox.size", Type.GAUGE, null, "system, dispatcher, actor",
        "Messages waiting in the actor's mailbox (per-actor: bean actors and Props.withMetrics() actors)"),
    ACTOR_MESSAGES_PROCESSED("troupe.actor.messages.processed", Type.COUNTER, null, "system, dispatcher, actor",
        "Messages processed by the actor (per-actor)"),
    ACTOR_PROCESSING_TIME("troupe.actor.processing.time", Type.FUNCTION_TIMER, "seconds", "system, dispatcher, actor",
        "Time the actor spent processing messages, from sampled turns (per-actor)"),
    REMOTE_MESSAGES("troupe.remote.messages", Type.COUNTER, null, "system, peer, direction",
        "User messages sent to (direction=out) and received from (direction=in) a peer node"),
    REMOTE_BYTES("troupe.remote.bytes", Type.COUNTER, "bytes", "system, peer, direction",
        "Frame bytes, headers included, sent to and received from a peer node"),
    REMOTE_ASSOCIATIONS("troupe.remote.associations", Type.GAUGE, null, "system, state",
        "Associations with peer nodes by state (connecting, active, unreachable, closed)"),
    REMOTE_OUTBOUND_QUEUED("troupe.remote.outbound.queued", Type.GAUGE, "bytes", "system, peer",
        "Bytes waiting in the outbound buffer to a peer"),
    REMOTE_OUTBOUND_OVERFLOWS("troupe.remote.outbound.overflows", Type.COUNTER, null, "system, peer",
        "Messages to a peer dropped (as dead letters 'outbound-overflow') because its outbound buffer was full"),
    REMOTE_MEMORY("troupe.remote.memory", Type.GAUGE, "bytes", "system, peer",
        "Bytes the peer makes this node hold (outbound buffer, compression tables, watches, unacknowledged system messages), against troupe.remote.max-peer-memory; summed over peers, against troupe.remote.max-remote-memory"),
    REMOTE_PHI("troupe.remote.phi", Type.GAUGE, null, "system, peer",
        "The failure detector's phi for a peer; above the threshold the peer is unreachable"),
    REMOTE_RECONNECTS("troupe.remote.reconnects", Type.COUNTER, null, "system, peer",
        "Reconnections to a peer"),
    REMOTE_NODES_LOST("troupe.remote.nodes.lost", Type.COUNTER, null, "system, peer",
        "Times a peer was declared lost (failure detector, restart with a new UID, or its shutdown)"),
    REMOTE_FRAMES_REJECTED("troupe.remote.frames.rejected", Type.COUNTER, null, "system, reason",
        "Frames or connections refused, by reason (bad-magic, frame-too-large, auth-failed, ...)"),
    REMOTE_INBOUND_CONNECTIONS("troupe.remote.inbound.connections", Type.GAUGE, null, "system",
        "Inbound connections open now"),
    CLUSTER_MEMBERS("troupe.cluster.members", Type.GAUGE, null, "system, status",
        "Members in this node's view by announced status (joining, up, leaving, exiting), this node included"),
    CLUSTER_UNREACHABLE("troupe.cluster.unreachable", Type.GAUGE, null, "system",
        "Members this node's failure detector does not reach now"),
    CLUSTER_VIEW_CHANGES("troupe.cluster.view.changes", Type.COUNTER, null, "system",
        "Changes of this node's view since start: members joining, changing status or removed"),
    CLUSTER_REJECTED("troupe.cluster.rejected", Type.COUNTER, null, "system, kind",
        "Peer messages refused for exceeding a bound or naming another node: member info (kind=member-info), receptionist entries (kind=receptionist-entry)"),
    CLUSTER_RECEPTIONIST_ENTRIES("troupe.cluster.receptionist.entries", Type.GAUGE, null, "system, key",
        "Actors registered under a service key, cluster-wide, for the keys registered or subscribed to on this node (at most 100)"),
    SHARDING_ENTITIES("troupe.cluster.sharding.entities", Type.GAUGE, null, "system, type",
        "Sharded entities of the type running on this node now"),
    SHARDING_SHARDS("troupe.cluster.sharding.shards", Type.GAUGE, null, "system, type",
        "Shards of the type whose entities this node hosts now"),
    SHARDING_ENTITIES_STARTED("troupe.cluster.sharding.entities.started", Type.COUNTER, null, "system, type",
        "Entities of the type started on this node (first message, after passivation, after a hand-off)"),
    SHARDING_PASSIVATIONS("troupe.cluster.sharding.passivations", Type.COUNTER, null, "system, type",
        "Entities of the type passivated on this node: idle, over the active-entity cap, or on their own request"),
    SHARDING_HANDOFFS("troupe.cluster.sharding.handoffs", Type.FUNCTION_TIMER, "seconds", "system, type",
        "Shards this node handed off to a new owner, and the time from the first stop message to the last entity stopped"),
    SHARDING_FORWARDED("troupe.cluster.sharding.forwarded", Type.COUNTER, null, "system, type",
        "Messages this node's shard region forwarded to another node's region (direct sends from entity refs are the transport's)"),
    SHARDING_BUFFERED("troupe.cluster.sharding.buffered", Type.GAUGE, null, "system, type",
        "Messages held now for shards that are moving or whose owner is not reachable"),
    SHARDING_BUFFERED_MESSAGES("troupe.cluster.sharding.buffered.messages", Type.COUNTER, null, "system, type",
        "Messages that were held at some point, for shards moving or without a reachable owner"),
    SHARDING_REJECTED("troupe.cluster.sharding.rejected", Type.COUNTER, null, "system, type",
        "Protocol messages from other nodes' regions refused (a shard out of range)"),

    PERSISTENCE_EVENTS_PERSISTED("troupe.persistence.events.persisted", Type.COUNTER, null, "system",
        "Events the store committed"),
    PERSISTENCE_BATCHES("troupe.persistence.batches", Type.COUNTER, null, "system, size",
        "Write batches the store committed (one statement and one transaction each), by size: the upper bound of the"
            + " batch's size bucket in events (1, 2, 4, ... 1024, more)"),
    PERSISTENCE_WRITE_SAMPLED("troupe.persistence.write.sampled", Type.FUNCTION_TIMER, "seconds", "system",
        "Write latency of sampled batches (one in troupe.persistence.jdbc.sample-every, 16), from the batch's first write queued to its commit"),
    PERSISTENCE_WRITE_MAX("troupe.persistence.write.max", Type.GAUGE, "seconds", "system",
        "Longest sampled batch write since the previous read"),
    PERSISTENCE_BATCHES_IN_FLIGHT("troupe.persistence.batches.in.flight", Type.GAUGE, null, "system",
        "Write batches being written now"),
    PERSISTENCE_WRITES_QUEUED("troupe.persistence.writes.queued", Type.GAUGE, null, "system",
        "Entities' writes queued now and not yet in a batch"),
    PERSISTENCE_COMMANDS_STASHED("troupe.persistence.commands.stashed", Type.COUNTER, null, "system",
        "Commands entities stashed because a write or their recovery was in flight"),
    PERSISTENCE_STASHED("troupe.persistence.stashed", Type.GAUGE, null, "system",
        "Commands waiting in entities' stashes now"),
    PERSISTENCE_RECOVERIES("troupe.persistence.recoveries", Type.FUNCTION_TIMER, "seconds", "system",
        "Entity recoveries completed, and their time from the entity's start to its last replayed event"),
    PERSISTENCE_RECOVERY_MAX("troupe.persistence.recovery.max", Type.GAUGE, "seconds", "system",
        "Longest recovery since the previous read"),
    PERSISTENCE_RECOVERING("troupe.persistence.recovering", Type.GAUGE, null, "system",
        "Entities recovering now"),
    PERSISTENCE_EVENTS_RECOVERED("troupe.persistence.events.recovered", Type.COUNTER, null, "system",
        "Events applied by recoveries"),
    PERSISTENCE_SNAPSHOTS("troupe.persistence.snapshots", Type.COUNTER, null, "system",
        "Snapshots stored"),
    PERSISTENCE_CONFLICTS("troupe.persistence.conflicts", Type.COUNTER, null, "system",
        "Writes refused because another writer held the sequence number or revision (the entity stopped)"),
    PERSISTENCE_FAILURES("troupe.persistence.failures", Type.COUNTER, null, "system, reason",
        "Entity failures (writes, recoveries, refused commands) by reason: unavailable, timeout, conflict, serialization,"
            + " oversized, stash-overflow, other"),
    PERSISTENCE_STORE_FAILURES("troupe.persistence.store.failures", Type.COUNTER, null, "system, reason",
        "Store operations (batches, reads, snapshot and state writes) that failed, by reason");

    /** The Micrometer meter type. */
    public enum Type {
        GAUGE, COUNTER, FUNCTION_TIMER, TIMER
    }

    private final String meterName;
    private final Type type;
    private final String baseUnit;
    private final String tags;
    private final String description;

    TroupeMeter(String meterName, Type type, String baseUnit, String tags, String description) {
        this.meterName = meterName;
        this.type = type;
        this.baseUnit = baseUnit;
        this.tags = tags;
        this.description = description;
    }

    /** @return the dotted meter name */
    public String meterName() {
        return meterName;
    }

    /** @return the meter type */
    public Type type() {
        return type;
    }

    /** @return the base unit, or null for plain counts (so Prometheus names carry no unit suffix) */
    public String baseUnit() {
        return baseUnit;
    }

    /** @return the tag keys, comma-separated */
    public String tags() {
        return tags;
    }

    /** @return the description */
    public String description() {
        return description;
    }
}
