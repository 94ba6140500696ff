package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.ShardingState;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * The messages shard regions exchange (between nodes: strings, numbers, arrays and actor refs,
 * which a transport can carry) and the region's messages to itself. The envelopes are public:
 * a dead letter of a sharded message may carry one.
 *
 * <p>Ownership of a shard moves without a coordinator: a node whose view makes it a shard's
 * owner asks every other member with the role to {@link AcquireShards release} it, and starts
 * the shard's entities only once all have {@link ShardsReleased answered}. A member answers at
 * once if its own view does not make it the owner and it runs none of the shard's entities;
 * otherwise when its view changes and its entities have stopped (the hand-off). Each attempt
 * has an epoch, and only answers for the current attempt count, so an old release never lets a
 * shard start twice. See docs/sharding.md.
 */
public final class RegionProtocol {

    private RegionProtocol() {
    }

    /**
     * The messages that cross the wire between regions ({@link ShardingSerializer}): the class each
     * region is published with on the remote transport, so a peer's message of any other class is
     * dropped ({@code type-mismatch}) before it reaches the region.
     */
    public sealed interface Wire permits EntityEnvelope, AcquireShards, ShardsReleased, Leaving, LeavingSeen, GetRegionState, RegionState {
    }

    /**
     * A message for an entity, from an entity ref to its region or between regions.
     *
     * @param entityId the entity
     * @param message the entity's message
     * @param hops how many times regions have forwarded it to another node so far
     */
    public record EntityEnvelope(String entityId, Object message, int hops) implements Wire {
    }

    /**
     * A message from an entity ref of this node that took the region's path. It is counted in
     * {@link ShardRouter}'s per-shard count until the region has put it into the entity's mailbox, sent
     * it to another node or made it a dead letter; while a shard has such messages outstanding,
     * the node's senders take the region's path too, so a sender's messages never overtake each
     * other (as they could when an entity starts: an earlier message still in the region's
     * mailbox, the next told straight to the slot just published). Never leaves the node.
     *
     * @param entityId the entity
     * @param shard its shard, as the entity ref computed it (the count to release is that shard's)
     * @param message the entity's message
     */
    public record LocalEnvelope(String entityId, int shard, Object message) {
    }

    /**
     * "Release these shards to me": the sender's view makes it their owner.
     *
     * @param from the sender's node
     * @param replyTo the sender's region
     * @param shards the shards
     * @param epochs the sender's attempt of each, echoed in the answer
     */
    record AcquireShards(Address from, ActorRef<Object> replyTo, int[] shards, long[] epochs) implements Wire {
        @Override
        public String toString() {
            return "AcquireShards(" + from + ", " + shards.length + " shards " + Arrays.toString(Arrays.copyOf(shards, Math.min(8, shards.length))) + ")";
        }
    }

    /**
     * "I run none of these shards' entities and my view does not make me their owner".
     *
     * @param from the sender's node
     * @param shards the shards
     * @param epochs the attempts answered
     */
    record ShardsReleased(Address from, int[] shards, long[] epochs) implements Wire {
        @Override
        public String toString() {
            return "ShardsReleased(" + from + ", " + shards.length + " shards)";
        }
    }

    /**
     * "I am leaving: tell me once your view shows it", so a leaving node exits only after nobody routes to it.
     *
     * @param from the leaving node
     * @param replyTo its region
     */
    record Leaving(Address from, ActorRef<Object> replyTo) implements Wire {
    }

    /**
     * The answer to {@link Leaving}.
     *
     * @param from the node that sees the leave
     */
    record LeavingSeen(Address from) implements Wire {
    }

    /**
     * "Which of these shards do you host, and which of their entities run?" ({@code ClusterSharding.state},
     * {@code entityLocation}).
     *
     * @param from the asking node
     * @param replyTo the asking node's region
     * @param requestId the asker's query, echoed in the answer
     * @param shard the one shard asked about, or -1 for all
     * @param entityId the one entity to list, or null to list up to {@code maxIds} per shard
     * @param maxIds the most entity ids listed per shard
     */
    record GetRegionState(Address from, ActorRef<Object> replyTo, long requestId, int shard, String entityId, int maxIds) implements Wire {
    }

    /**
     * The answer to {@link GetRegionState}: the shards the sender hosts (of those asked about), with
     * how many entities run in each and the ids listed.
     *
     * @param from the answering node
     * @param requestId the query answered
     * @param shards the hosted shards
     * @param entities per shard, the entities running
     * @param entityIds per shard, the ids listed (at most the cap asked for)
     */
    record RegionState(Address from, long requestId, int[] shards, int[] entities, String[][] entityIds) implements Wire {
        @Override
        public String toString() {
            return "RegionState(" + from + ", " + requestId + ", " + shards.length + " shards)";
        }
    }

    /**
     * Local: gather the regions' state from every member with the role, complete {@code done} when
     * all have answered or the timeout has passed.
     */
    record StateRequested(CompletableFuture<ShardingState> done, int shard, String entityId, int maxIds, long timeoutNanos) {
    }

    /** Local: a query's timeout (the timer's key and message). */
    record StateTimedOut(long requestId) {
    }

    /** The cluster is leaving: hand off every shard, then complete the future. */
    record LeaveRequested(CompletableFuture<Void> done) {
    }

    /** The region's periodic work: the clock, idle entities, stuck stops, resends. */
    enum Tick { INSTANCE }
}
