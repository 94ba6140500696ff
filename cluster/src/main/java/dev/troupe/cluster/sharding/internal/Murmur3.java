package dev.troupe.cluster.sharding.internal;

/**
 * MurmurHash3 (x86, 32-bit) of a string's UTF-8 bytes, computed from its chars without encoding
 * them into an array first: the shard of an entity id is a pure function of the id, the same in
 * every JVM (unlike {@code String.hashCode}, which is only specified for UTF-16 and skews on
 * short ids). Malformed input (a lone surrogate) hashes as {@code '?'}, as
 * {@code String.getBytes(UTF_8)} encodes it. Allocates nothing.
 */
public final class Murmur3 {

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Murmur3() {
    }

    /**
     * @param text a string
     * @param seed the seed
     * @return the 32-bit MurmurHash3 of its UTF-8 encoding
     */
    public static int hashUtf8(String text, int seed) {
        int h = seed;
        int block = 0;   // bytes of the current 4-byte block, little-endian
        int filled = 0;  // how many bytes of it are set
        int length = 0;  // bytes hashed so far
        final int n = text.length();
        for (int i = 0; i < n; i++) {
            final char c = text.charAt(i);
            int cp = c;
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                cp = Character.toCodePoint(c, text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                cp = '?';
            }
            // Up to four bytes per code point; each goes through the same block accumulator.
            final int bytes;
            final int b0;
            int b1 = 0;
            int b2 = 0;
            int b3 = 0;
            if (cp < 0x80) {
                bytes = 1;
                b0 = cp;
            } else if (cp < 0x800) {
                bytes = 2;
                b0 = 0xc0 | (cp >>> 6);
                b1 = 0x80 | (cp & 0x3f);
            } else if (cp < 0x10000) {
                bytes = 3;
                b0 = 0xe0 | (cp >>> 12);
                b1 = 0x80 | ((cp >>> 6) & 0x3f);
                b2 = 0x80 | (cp & 0x3f);
            } else {
                bytes = 4;
                b0 = 0xf0 | (cp >>> 18);
                b1 = 0x80 | ((cp >>> 12) & 0x3f);
                b2 = 0x80 | ((cp >>> 6) & 0x3f);
                b3 = 0x80 | (cp & 0x3f);
            }
            for (int k = 0; k < bytes; k++) {
                final int b = k == 0 ? b0 : k == 1 ? b1 : k == 2 ? b2 : b3;
                block |= (b & 0xff) << (filled << 3);
                length++;
                if (++filled == 4) {
                    h = mixBlock(h, block);
                    block = 0;
                    filled = 0;
                }
            }
        }
        if (filled > 0) {
            h ^= mixK(block);
        }
        return fmix(h ^ length);
    }

    private static int mixK(int k) {
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        return k * C2;
    }

    private static int mixBlock(int h, int block) {
        h ^= mixK(block);
        h = Integer.rotateLeft(h, 13);
        return h * 5 + 0xe6546b64;
    }

    private static int fmix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /**
     * @param z a value
     * @return the 64-bit finaliser of SplitMix64: every input bit affects every output bit
     */
    static long mix64(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /**
     * @param text a string
     * @return a 64-bit hash of its UTF-8 bytes (two 32-bit MurmurHash3 with different seeds)
     */
    static long hash64(String text) {
        return mix64(((long) hashUtf8(text, 0x5bd1e995) << 32) | (hashUtf8(text, 0x2545f491) & 0xffffffffL));
    }
}
