package dev.troupe.remote;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;

/**
 * Helpers for binary {@link Serializer}s, the one copy the built-in serializers, Troupe's own
 * modules and applications share: UTF-8 strings written char by char (no {@code byte[]} per
 * message) with an optional bound checked before anything is written, and unsigned and zig-zag
 * varints (LEB128: seven bits a byte, low group first, the high bit set on every byte but the
 * last). Refs are written with {@link Serializer#writeRef} and read with {@link Serializer#readRef}.
 * All integers a serializer writes itself should be big-endian (network order), as the built-ins'.
 *
 * <pre>
 *   putUtf8("añ")            61 C3 B1                  (no length: the caller frames it)
 *   putVarInt(0)             00
 *   putVarInt(300)           AC 02                     (300 = 0b10_0101100)
 *   putVarInt(-1)            FF FF FF FF 0F            (an int as unsigned 32 bits: 5 bytes)
 *   putVarLong(zigZag(-1))   01                        (small negative numbers stay small)
 * </pre>
 *
 * <p>Reading is bounded: every reader takes the end of the bytes it may read and fails with an
 * {@link IllegalArgumentException} (the transport makes the message a dead letter
 * {@code serialization-failed} and keeps the connection) before it reads past it. A varint must be
 * in its shortest form, so the bytes a read took are {@link #varIntLength} of the value read: a
 * reader needs no second return value, and no object.
 *
 * <p>Stateless and thread-safe. Writing allocates nothing; {@link #getUtf8} allocates the string
 * and nothing else (it decodes through a per-thread scratch array).
 */
public final class BinaryCodec {

    /** Per-thread scratch for decoding strings: one String and its array per message, nothing else. */
    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[256]});

    private BinaryCodec() {
    }

    // ---------------------------------------------------------------- UTF-8

    /**
     * @param s a string
     * @return the bytes of its UTF-8 form as {@link #putUtf8} writes it (an unpaired surrogate is one byte, {@code '?'})
     */
    public static int utf8Length(CharSequence s) {
        final int n = s.length();
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            final char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /**
     * Writes a string as UTF-8, char by char: no {@code String.getBytes}, which would allocate an
     * array per message. An unpaired surrogate is written as {@code '?'}, as {@code String.getBytes}
     * does. The buffer's limit is checked once, up front, for the longest form (3 bytes a char): an
     * expandable buffer grows once, a fixed one fails before anything is written.
     *
     * @param buffer where to write
     * @param offset the first byte
     * @param s the string
     * @return the bytes written (no length prefix: the caller frames the string)
     */
    public static int putUtf8(MutableDirectBuffer buffer, int offset, String s) {
        final int n = s.length();
        buffer.checkLimit(offset + n * 3);
        int p = offset;
        for (int i = 0; i < n; i++) {
            final char c = s.charAt(i);
            if (c < 0x80) {
                buffer.putByte(p++, (byte) c);
            } else if (c < 0x800) {
                buffer.putByte(p++, (byte) (0xC0 | (c >> 6)));
                buffer.putByte(p++, (byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                final int cp = Character.toCodePoint(c, s.charAt(++i));
                buffer.putByte(p++, (byte) (0xF0 | (cp >> 18)));
                buffer.putByte(p++, (byte) (0x80 | ((cp >> 12) & 0x3F)));
                buffer.putByte(p++, (byte) (0x80 | ((cp >> 6) & 0x3F)));
                buffer.putByte(p++, (byte) (0x80 | (cp & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                buffer.putByte(p++, (byte) '?');
            } else {
                buffer.putByte(p++, (byte) (0xE0 | (c >> 12)));
                buffer.putByte(p++, (byte) (0x80 | ((c >> 6) & 0x3F)));
                buffer.putByte(p++, (byte) (0x80 | (c & 0x3F)));
            }
        }
        return p - offset;
    }

    /**
     * {@link #putUtf8(MutableDirectBuffer, int, String)} with a bound: a string whose UTF-8 form
     * is longer than {@code maxBytes} is refused before anything is written (so a huge string never
     * grows the buffer). Strings of at most {@code maxBytes / 3} chars are written without counting.
     *
     * @param what what the string is, for the error ("entity id")
     * @return the bytes written
     * @throws IllegalArgumentException naming {@code what}, its length and the bound
     */
    public static int putUtf8(MutableDirectBuffer buffer, int offset, String s, int maxBytes, String what) {
        final int n = s.length();
        if (n > maxBytes / 3) {
            final int bytes = n > maxBytes ? n : utf8Length(s); // never fewer bytes than chars
            if (bytes > maxBytes) {
                throw new IllegalArgumentException(what + " of " + (n > maxBytes ? "at least " + n : String.valueOf(bytes))
                    + " UTF-8 bytes, at most " + maxBytes + " allowed");
            }
        }
        return putUtf8(buffer, offset, s);
    }

    /**
     * Reads a UTF-8 string of {@code length} bytes, through a per-thread scratch array: allocates
     * the string and nothing else. Malformed input is replaced, as {@code new String(bytes, UTF_8)} does.
     *
     * @param buffer where to read
     * @param offset the first byte
     * @param length the bytes of the string, checked by the caller against what it may read
     * @return the string
     * @throws IllegalArgumentException for a negative length
     */
    public static String getUtf8(DirectBuffer buffer, int offset, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("a string of " + length + " bytes");
        }
        final byte[][] holder = SCRATCH.get();
        byte[] scratch = holder[0];
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
            holder[0] = scratch;
        }
        buffer.getBytes(offset, scratch, 0, length);
        return new String(scratch, 0, length, StandardCharsets.UTF_8);
    }

    /**
     * {@link #getUtf8(DirectBuffer, int, int)} with bounds checked before anything is read or allocated.
     *
     * @param end the first byte the string may not reach (the end of the message)
     * @param maxBytes the longest string allowed
     * @param what what the string is, for the error
     * @throws IllegalArgumentException naming {@code what} if the length is negative, above {@code maxBytes},
     *         or runs past {@code end}
     */
    public static String getUtf8(DirectBuffer buffer, int offset, int length, int end, int maxBytes, String what) {
        if (length < 0 || length > maxBytes) {
            throw new IllegalArgumentException(what + " of " + length + " UTF-8 bytes, at most " + maxBytes + " allowed");
        }
        if (end - offset < length) {
            throw new IllegalArgumentException("truncated " + what + ": " + length + " bytes needed, " + Math.max(0, end - offset) + " left");
        }
        return getUtf8(buffer, offset, length);
    }

    // ---------------------------------------------------------------- varints

    /** @return the bytes of {@code value} as an unsigned varint, 1 to 5 */
    public static int varIntLength(int value) {
        return value >>> 7 == 0 ? 1 : value >>> 14 == 0 ? 2 : value >>> 21 == 0 ? 3 : value >>> 28 == 0 ? 4 : 5;
    }

    /** @return the bytes of {@code value} as an unsigned varint, 1 to 10 */
    public static int varLongLength(long value) {
        final int bits = 64 - Long.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }

    /**
     * Writes {@code value} as an unsigned varint (a negative int takes 5 bytes: use {@link #zigZag(int)}
     * for signed values that are often small).
     *
     * @return the bytes written, {@link #varIntLength} of the value
     */
    public static int putVarInt(MutableDirectBuffer buffer, int offset, int value) {
        int p = offset;
        int v = value;
        while ((v & ~0x7F) != 0) {
            buffer.putByte(p++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buffer.putByte(p++, (byte) v);
        return p - offset;
    }

    /**
     * Writes {@code value} as an unsigned varint.
     *
     * @return the bytes written, {@link #varLongLength} of the value
     */
    public static int putVarLong(MutableDirectBuffer buffer, int offset, long value) {
        int p = offset;
        long v = value;
        while ((v & ~0x7FL) != 0) {
            buffer.putByte(p++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buffer.putByte(p++, (byte) v);
        return p - offset;
    }

    /**
     * Reads an unsigned varint written by {@link #putVarInt}; it took {@link #varIntLength} of the
     * value read.
     *
     * @param end the first byte the varint may not reach
     * @throws IllegalArgumentException if it runs past {@code end}, is longer than 5 bytes or 32 bits,
     *         or is not in its shortest form
     */
    public static int getVarInt(DirectBuffer buffer, int offset, int end) {
        int v = 0;
        for (int i = 0; i < 5; i++) {
            if (offset + i >= end) {
                throw new IllegalArgumentException("truncated varint");
            }
            final int b = buffer.getByte(offset + i);
            if (i == 4 && (b & 0xF0) != 0) {
                throw new IllegalArgumentException("a varint of more than 32 bits");
            }
            v |= (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (b == 0 && i > 0) {
                    throw new IllegalArgumentException("a varint not in its shortest form");
                }
                return v;
            }
        }
        throw new IllegalStateException("unreachable: the fifth byte of a varint never continues");
    }

    /**
     * Reads an unsigned varint written by {@link #putVarLong}; it took {@link #varLongLength} of the
     * value read.
     *
     * @param end the first byte the varint may not reach
     * @throws IllegalArgumentException if it runs past {@code end}, is longer than 64 bits, or is not
     *         in its shortest form
     */
    public static long getVarLong(DirectBuffer buffer, int offset, int end) {
        long v = 0;
        for (int i = 0; i < 10; i++) {
            if (offset + i >= end) {
                throw new IllegalArgumentException("truncated varint");
            }
            final int b = buffer.getByte(offset + i);
            if (i == 9 && (b & 0xFE) != 0) {
                throw new IllegalArgumentException("a varint of more than 64 bits");
            }
            v |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (b == 0 && i > 0) {
                    throw new IllegalArgumentException("a varint not in its shortest form");
                }
                return v;
            }
        }
        throw new IllegalStateException("unreachable: the tenth byte of a varint never continues");
    }

    /** @return {@code value} mapped so that small magnitudes of either sign are small unsigned values (0, -1, 1, -2 to 0, 1, 2, 3) */
    public static int zigZag(int value) {
        return (value << 1) ^ (value >> 31);
    }

    /** @return the value {@link #zigZag(int)} mapped */
    public static int unZigZag(int value) {
        return (value >>> 1) ^ -(value & 1);
    }

    /** @return {@code value} mapped so that small magnitudes of either sign are small unsigned values */
    public static long zigZag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    /** @return the value {@link #zigZag(long)} mapped */
    public static long unZigZag(long value) {
        return (value >>> 1) ^ -(value & 1);
    }
}
