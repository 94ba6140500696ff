package dev.troupe.cluster.sharding.internal;

import dev.troupe.cluster.Address;

import java.util.List;

/**
 * Which member owns each shard: rendezvous (highest-random-weight) hashing with bounded loads,
 * computed by every node from its own view, so there is no coordinator.
 *
 * <p>Each (member, shard) pair has a weight, a hash of the member's address and the shard
 * number; a shard goes to its highest-weight member. Pure rendezvous hashing moves only the
 * shards of a member that comes or goes (1/N), but its loads are multinomial: with 1,000 shards
 * over 100 members the busiest member holds about twice the mean, and no number of hashes per
 * pair changes that, because each shard still picks a member independently. So members get a
 * capacity, {@code max(ceil(S/N), floor(1.25 S/N))}, and shards, taken in shard order, go to
 * their highest-weight member that is below capacity: the busiest member holds at most 1.25
 * times the mean, and about 1.2/N to 1.3/N of the shards move per change
 * ({@code PlacementSimulationTest} measures both from 3 to 100 members).
 *
 * <p>The weights depend on addresses only, not on incarnations, so a node that restarts at the
 * same address gets the same shards back. Deterministic: every node that sees the same members
 * computes the same owners. Not thread-safe; built on the shard region's thread.
 */
public final class Placement {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Placement() {
    }

    /**
     * @param members the members, sorted by address (ties of weight go to the earlier)
     * @param shards the number of shards
     * @return for each shard, the index of its owner in {@code members}; all -1 when there are none
     */
    public static int[] assign(List<Address> members, int shards) {
        final int n = members.size();
        final int[] owner = new int[shards];
        if (n == 0) {
            java.util.Arrays.fill(owner, -1);
            return owner;
        }
        final long[] memberHash = new long[n];
        for (int i = 0; i < n; i++) {
            memberHash[i] = Murmur3.hash64(members.get(i).toString());
        }
        final int capacity = capacity(shards, n);
        final int[] load = new int[n];
        for (int s = 0; s < shards; s++) {
            final long shardHash = Murmur3.mix64(s * GOLDEN + 1);
            int best = -1;
            long bestWeight = 0;
            for (int i = 0; i < n; i++) {
                if (load[i] >= capacity) {
                    continue;
                }
                final long w = Murmur3.mix64(memberHash[i] ^ shardHash);
                if (best < 0 || Long.compareUnsigned(w, bestWeight) > 0) {
                    best = i;
                    bestWeight = w;
                }
            }
            owner[s] = best;
            load[best]++;
        }
        return owner;
    }

    /**
     * @param shards shards
     * @param members members, at least one
     * @return the most shards one member may own: at least the ceiling of the mean, at most 1.25 times the mean
     */
    static int capacity(int shards, int members) {
        final int ceilMean = (shards + members - 1) / members;
        final int bounded = (int) (5L * shards / (4L * members));
        return Math.max(ceilMean, bounded);
    }

    /**
     * Pure rendezvous hashing, without capacities; for the simulation's comparison.
     *
     * @param members the members, sorted
     * @param shards the number of shards
     * @return the owner index of each shard
     */
    static int[] assignUnbounded(List<Address> members, int shards) {
        final int n = members.size();
        final long[] memberHash = new long[n];
        for (int i = 0; i < n; i++) {
            memberHash[i] = Murmur3.hash64(members.get(i).toString());
        }
        final int[] owner = new int[shards];
        for (int s = 0; s < shards; s++) {
            final long shardHash = Murmur3.mix64(s * GOLDEN + 1);
            int best = -1;
            long bestWeight = 0;
            for (int i = 0; i < n; i++) {
                final long w = Murmur3.mix64(memberHash[i] ^ shardHash);
                if (best < 0 || Long.compareUnsigned(w, bestWeight) > 0) {
                    best = i;
                    bestWeight = w;
                }
            }
            owner[s] = best;
        }
        return owner;
    }
}
