package dev.troupe.remote;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shared codec helpers: golden bytes, round trips, and every bound refused before it is crossed. */
class BinaryCodecTest {

    private static byte[] bytes(ExpandableArrayBuffer b, int offset, int n) {
        final byte[] out = new byte[n];
        b.getBytes(offset, out);
        return out;
    }

    @Test
    void utf8IsWhatStringGetBytesWritesAndReadsBack() {
        final ExpandableArrayBuffer b = new ExpandableArrayBuffer(4);
        final String s = "añ€𝄞\uD800x"; // two-, three- and four-byte forms and an unpaired surrogate
        final byte[] expected = s.getBytes(StandardCharsets.UTF_8);
        final int n = BinaryCodec.putUtf8(b, 3, s);
        assertThat(n).isEqualTo(expected.length).isEqualTo(BinaryCodec.utf8Length(s));
        assertThat(bytes(b, 3, n)).isEqualTo(expected);
        assertThat(BinaryCodec.getUtf8(b, 3, n)).isEqualTo(new String(expected, StandardCharsets.UTF_8));
        assertThat(bytes(b, 0, 0)).isEmpty();
        assertThat(BinaryCodec.putUtf8(b, 0, "añ")).isEqualTo(3);
        assertThat(bytes(b, 0, 3)).containsExactly(0x61, 0xC3, 0xB1);
    }

    @Test
    void aBoundedStringOverItsBoundIsRefusedBeforeAnythingIsWritten() {
        final ExpandableArrayBuffer b = new ExpandableArrayBuffer(16);
        assertThat(BinaryCodec.putUtf8(b, 0, "x".repeat(10), 10, "entity id")).isEqualTo(10);
        final int capacity = b.capacity();
        assertThatThrownBy(() -> BinaryCodec.putUtf8(b, 0, "x".repeat(11), 10, "entity id"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("entity id").hasMessageContaining("at most 10");
        // 4 chars of 3 bytes each: fewer chars than the bound, more bytes
        assertThatThrownBy(() -> BinaryCodec.putUtf8(b, 0, "€€€€", 10, "key"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key of 12 UTF-8 bytes");
        final String huge = "€".repeat(1_000_000);
        assertThatThrownBy(() -> BinaryCodec.putUtf8(b, 0, huge, 4096, "entity id")).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.capacity()).as("nothing was written, so the buffer did not grow").isEqualTo(capacity);
        assertThat(BinaryCodec.putUtf8(b, 0, "€€€", 9, "key")).isEqualTo(9);
    }

    @Test
    void aBoundedReadChecksTheLengthAndWhatIsLeftFirst() {
        final UnsafeBuffer b = new UnsafeBuffer("hello".getBytes(StandardCharsets.US_ASCII));
        assertThat(BinaryCodec.getUtf8(b, 0, 5, 5, 16, "name")).isEqualTo("hello");
        assertThatThrownBy(() -> BinaryCodec.getUtf8(b, 0, 6, 5, 16, "name"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated name");
        assertThatThrownBy(() -> BinaryCodec.getUtf8(b, 0, 5, 5, 4, "name"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 4");
        assertThatThrownBy(() -> BinaryCodec.getUtf8(b, 0, -1, 5, 16, "name")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void varintsHaveTheirGoldenBytes() {
        final ExpandableArrayBuffer b = new ExpandableArrayBuffer(16);
        assertThat(BinaryCodec.putVarInt(b, 0, 0)).isEqualTo(1);
        assertThat(bytes(b, 0, 1)).containsExactly(0x00);
        assertThat(BinaryCodec.putVarInt(b, 0, 300)).isEqualTo(2);
        assertThat(bytes(b, 0, 2)).containsExactly(0xAC, 0x02);
        assertThat(BinaryCodec.putVarInt(b, 0, -1)).isEqualTo(5);
        assertThat(bytes(b, 0, 5)).containsExactly(0xFF, 0xFF, 0xFF, 0xFF, 0x0F);
        assertThat(BinaryCodec.putVarLong(b, 0, BinaryCodec.zigZag(-1L))).isEqualTo(1);
        assertThat(bytes(b, 0, 1)).containsExactly(0x01);
        assertThat(BinaryCodec.putVarLong(b, 0, -1L)).isEqualTo(10);
        assertThat(bytes(b, 0, 10)).containsExactly(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01);
    }

    @Test
    void varintsRoundTripAndTakeTheBytesTheirLengthSays() {
        final ExpandableArrayBuffer b = new ExpandableArrayBuffer(16);
        final Random r = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            final int v = i < 64 ? (1 << (i % 32)) - (i / 32) : r.nextInt() >>> r.nextInt(32);
            final int n = BinaryCodec.putVarInt(b, 1, v);
            assertThat(n).isEqualTo(BinaryCodec.varIntLength(v));
            assertThat(BinaryCodec.getVarInt(b, 1, 1 + n)).isEqualTo(v);
            final long l = i < 128 ? (1L << (i % 64)) - (i / 64) : r.nextLong() >>> r.nextInt(64);
            final int m = BinaryCodec.putVarLong(b, 1, l);
            assertThat(m).isEqualTo(BinaryCodec.varLongLength(l));
            assertThat(BinaryCodec.getVarLong(b, 1, 1 + m)).isEqualTo(l);
            final int z = r.nextInt(2001) - 1000;
            assertThat(BinaryCodec.unZigZag(BinaryCodec.zigZag(z))).isEqualTo(z);
            assertThat(BinaryCodec.unZigZag(BinaryCodec.zigZag((long) z * 1_000_000_007L))).isEqualTo((long) z * 1_000_000_007L);
        }
        assertThat(BinaryCodec.zigZag(0)).isZero();
        assertThat(BinaryCodec.zigZag(-1)).isEqualTo(1);
        assertThat(BinaryCodec.zigZag(1)).isEqualTo(2);
        assertThat(BinaryCodec.zigZag(Integer.MIN_VALUE)).isEqualTo(-1); // 0xFFFFFFFF unsigned
    }

    @Test
    void aVarintThatIsTruncatedTooLongOrNotShortestIsRefused() {
        assertThatThrownBy(() -> BinaryCodec.getVarInt(new UnsafeBuffer(new byte[] {(byte) 0x80}), 0, 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> BinaryCodec.getVarInt(new UnsafeBuffer(new byte[] {(byte) 0x80, 0x01}), 0, 1))
            .as("the end bounds the read, not the buffer").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> BinaryCodec.getVarInt(new UnsafeBuffer(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x1F}), 0, 5))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("32 bits");
        assertThatThrownBy(() -> BinaryCodec.getVarInt(new UnsafeBuffer(new byte[] {(byte) 0x81, 0x00}), 0, 2))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shortest");
        final byte[] eleven = new byte[11];
        java.util.Arrays.fill(eleven, (byte) 0xFF);
        assertThatThrownBy(() -> BinaryCodec.getVarLong(new UnsafeBuffer(eleven), 0, 11))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 bits");
        assertThatThrownBy(() -> BinaryCodec.getVarLong(new UnsafeBuffer(new byte[] {(byte) 0x80, (byte) 0x80, 0x00}), 0, 3))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shortest");
    }
}
