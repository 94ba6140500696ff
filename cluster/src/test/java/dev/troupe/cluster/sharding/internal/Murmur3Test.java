package dev.troupe.cluster.sharding.internal;

import dev.troupe.cluster.sharding.ShardingMessageExtractor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The shard hash: published MurmurHash3 values, and the same result as hashing the UTF-8 bytes. */
class Murmur3Test {

    /** The reference: MurmurHash3_x86_32 over a byte array, as in the original C code. */
    static int reference(byte[] data, int seed) {
        int h = seed;
        final int blocks = data.length / 4;
        for (int i = 0; i < blocks; i++) {
            int k = (data[4 * i] & 0xff) | (data[4 * i + 1] & 0xff) << 8 | (data[4 * i + 2] & 0xff) << 16 | (data[4 * i + 3] & 0xff) << 24;
            k *= 0xcc9e2d51;
            k = Integer.rotateLeft(k, 15);
            k *= 0x1b873593;
            h ^= k;
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xe6546b64;
        }
        int k = 0;
        final int tail = blocks * 4;
        switch (data.length & 3) {
            case 3:
                k ^= (data[tail + 2] & 0xff) << 16;
            case 2: // fall through
                k ^= (data[tail + 1] & 0xff) << 8;
            case 1: // fall through
                k ^= data[tail] & 0xff;
                k *= 0xcc9e2d51;
                k = Integer.rotateLeft(k, 15);
                k *= 0x1b873593;
                h ^= k;
            default:
        }
        h ^= data.length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    @Test
    void matchesPublishedValues() {
        assertThat(Murmur3.hashUtf8("", 0)).isZero();
        assertThat(Murmur3.hashUtf8("", 1)).isEqualTo(0x514E28B7);
        assertThat(Murmur3.hashUtf8("hello", 0)).isEqualTo(0x248BFA47);
        assertThat(Murmur3.hashUtf8("The quick brown fox jumps over the lazy dog", 0)).isEqualTo(0x2E4FF723);
    }

    @Test
    void equalsTheHashOfTheUtf8Bytes() {
        final Random random = new Random(42);
        final String[] fixed = {"A-1", "sku-000123", "é", "日本語", "\uD83D\uDE00 smile", "lone \uD800 surrogate", "\uDC00", "abc\uD800"};
        for (String s : fixed) {
            assertThat(Murmur3.hashUtf8(s, 0)).as(s).isEqualTo(reference(s.getBytes(StandardCharsets.UTF_8), 0));
        }
        for (int n = 0; n < 5_000; n++) {
            final StringBuilder sb = new StringBuilder();
            final int len = random.nextInt(24);
            for (int i = 0; i < len; i++) {
                final int kind = random.nextInt(4);
                sb.append(kind == 0 ? (char) random.nextInt(0x80) : kind == 1 ? (char) (0x80 + random.nextInt(0x780))
                    : kind == 2 ? (char) random.nextInt(0x10000) : (char) ('a' + random.nextInt(26)));
            }
            final String s = sb.toString();
            final int seed = random.nextInt();
            assertThat(Murmur3.hashUtf8(s, seed)).as(s).isEqualTo(reference(s.getBytes(StandardCharsets.UTF_8), seed));
        }
    }

    @Test
    void shardsAreStableAndSpread() {
        // Pinned: a change of the shard function would move every entity of a running cluster.
        assertThat(ShardingMessageExtractor.defaultShardId("A-1", 1000)).isEqualTo(661);
        assertThat(ShardingMessageExtractor.defaultShardId("sku-42", 1000)).isEqualTo(781);
        assertThat(ShardingMessageExtractor.defaultShardId("e-0", 1000)).isEqualTo(867);
        final int[] counts = new int[100];
        for (int i = 0; i < 100_000; i++) {
            counts[ShardingMessageExtractor.defaultShardId("sku-" + i, 100)]++;
        }
        for (int c : counts) {
            assertThat(c).isBetween(850, 1150);
        }
    }

    @Test
    void entityNamesRoundTrip() {
        for (String id : new String[] {"A-1", "a/b", "user@example.com", "x y", "100%", "#?", "tab\tline\n", "日本", "\uD83D\uDE00/"}) {
            final String name = EntityNames.encode(id);
            assertThat(name).doesNotContain("/", "@", "#", "?", " ", "\t", "\n");
            assertThat(EntityNames.decode(name)).isEqualTo(id);
        }
        assertThat(EntityNames.encode("A-1")).isSameAs("A-1".intern());
    }
}
