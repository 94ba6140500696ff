package dev.troupe.cluster.sharding;

import dev.troupe.cluster.Address;

import java.util.List;
import java.util.Objects;

/**
 * Where one entity type's shards and entities are, member by member: the answer of
 * {@link ClusterSharding#state}, gathered from every member with the type's role over the
 * cluster's transport (like Pekko's {@code GetClusterShardingStats} with the entity ids of
 * {@code GetShardRegionState}). A member that did not answer in time, or whose region this node
 * does not know, is listed with its {@link Answer}, never left out.
 *
 * <p>Each member's part is what that member hosted when it answered; the parts are not one
 * snapshot (a shard moving meanwhile may be in two parts or in none). Immutable.
 *
 * @param typeName the entity type's name
 * @param members one entry per member with the type's role in the asking node's view, sorted by address
 */
public record ShardingState(String typeName, List<MemberState> members) {

    /** Validates and copies. */
    public ShardingState {
        Objects.requireNonNull(typeName, "typeName");
        members = List.copyOf(members);
    }

    /** @return the entities running on the members that answered */
    public int entities() {
        int n = 0;
        for (MemberState m : members) {
            n += m.entities();
        }
        return n;
    }

    /** @return the shards hosted by the members that answered */
    public int shards() {
        int n = 0;
        for (MemberState m : members) {
            n += m.shards().size();
        }
        return n;
    }

    /** Whether and how a member answered. */
    public enum Answer {
        /** It answered: its shards are listed. */
        ANSWERED,
        /** It was asked and did not answer within the timeout (unreachable, busy, or gone). */
        NO_ANSWER,
        /** This node knows no region of the type on it (not initialized there yet, or not listed yet): it was not asked. */
        NO_REGION
    }

    /**
     * One member's region.
     *
     * @param member the member's address
     * @param answer whether it answered; when it did not, {@code shards} is empty
     * @param shards the shards it hosts, by shard id
     */
    public record MemberState(Address member, Answer answer, List<ShardState> shards) {

        /** Validates and copies. */
        public MemberState {
            Objects.requireNonNull(member, "member");
            Objects.requireNonNull(answer, "answer");
            shards = List.copyOf(shards);
        }

        /** @return the entities running in its shards */
        public int entities() {
            int n = 0;
            for (ShardState s : shards) {
                n += s.entities();
            }
            return n;
        }
    }

    /**
     * One hosted shard.
     *
     * @param shard the shard's id
     * @param entities how many of its entities run (not counting those being stopped)
     * @param entityIds the running entities' ids, sorted, at most the cap asked for (see {@link #capped()})
     */
    public record ShardState(int shard, int entities, List<String> entityIds) {

        /** Validates and copies. */
        public ShardState {
            if (entities < 0) {
                throw new IllegalArgumentException("entities " + entities);
            }
            entityIds = List.copyOf(entityIds);
        }

        /** @return whether more entities run than {@link #entityIds} lists (the cap asked for) */
        public boolean capped() {
            return entityIds.size() < entities;
        }
    }
}
