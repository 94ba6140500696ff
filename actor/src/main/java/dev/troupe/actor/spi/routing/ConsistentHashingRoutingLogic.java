package dev.troupe.actor.spi.routing;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Function;

/**
 * Messages with the same key go to the same routee, and when one of N routees comes or goes only
 * about 1/N of the keys move: a hash ring with {@code virtualNodesFactor} points per routee, each
 * point placed by hashing the routee's stable identity. A key is served by the first point at or
 * after its hash, around the ring.
 *
 * <p>The mapping from message to key is the user's; it should return a string the message already
 * holds (a field), since building one per message would allocate. Hashing reads the characters in
 * place and the lookup is a binary search over a sorted {@code int[]}: nothing is allocated per message.
 *
 * @param <T> the message type
 */
public final class ConsistentHashingRoutingLogic<T> extends RoutingLogic<T> {

    private final int virtualNodesFactor;
    private final Function<T, String> mapping;
    private int[] points = new int[0];
    private int[] owners = new int[0];

    /**
     * @param virtualNodesFactor points on the ring per routee, at least 1 (more points, more even spread)
     * @param mapping the key of a message
     */
    public ConsistentHashingRoutingLogic(int virtualNodesFactor, Function<T, String> mapping) {
        if (virtualNodesFactor < 1) {
            throw new IllegalArgumentException("virtualNodesFactor must be at least 1: " + virtualNodesFactor);
        }
        this.virtualNodesFactor = virtualNodesFactor;
        this.mapping = Objects.requireNonNull(mapping, "mapping");
    }

    @Override
    public void routeesChanged(String[] identities) {
        final int n = identities.length * virtualNodesFactor;
        final long[] entries = new long[n];
        int k = 0;
        for (int r = 0; r < identities.length; r++) {
            for (int v = 0; v < virtualNodesFactor; v++) {
                final int point = hash(identities[r] + "#" + v);
                // The point in the high half (sortable as unsigned), the owner in the low half.
                entries[k++] = ((long) (point ^ Integer.MIN_VALUE) << 32) | (r & 0xFFFFFFFFL);
            }
        }
        Arrays.sort(entries);
        final int[] p = new int[n];
        final int[] o = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = (int) (entries[i] >> 32);
            o[i] = (int) entries[i];
        }
        points = p;
        owners = o;
    }

    @Override
    public int select(T message, int routees) {
        final int[] p = points;
        if (p.length == 0) {
            return 0;
        }
        final String key = mapping.apply(message);
        final int h = (key == null ? 0 : hash(key)) ^ Integer.MIN_VALUE;
        int idx = Arrays.binarySearch(p, h);
        if (idx < 0) {
            idx = -idx - 1;
            if (idx == p.length) {
                idx = 0;
            }
        }
        final int owner = owners[idx];
        return owner < routees ? owner : owner % routees;
    }

    /**
     * The ring's hash: FNV-1a over the characters, then MurmurHash3's finalizer for avalanche.
     * Reads the string in place.
     *
     * @param key the key
     * @return its 32-bit hash
     */
    public static int hash(CharSequence key) {
        int h = 0x811C9DC5;
        for (int i = 0, n = key.length(); i < n; i++) {
            h ^= key.charAt(i);
            h *= 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        h ^= h >>> 16;
        return h;
    }

    /** @return the points per routee */
    public int virtualNodesFactor() {
        return virtualNodesFactor;
    }
}
