package dev.troupe.remote.internal;

import dev.troupe.remote.BinaryCodec;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The serializers every registry has, with their reserved ids. All write big-endian (network
 * order) so golden frames read the same on any machine; none allocates when writing. The
 * fixed-size ones refuse a payload of any other length (a deserialization failure). Strings go
 * through {@link BinaryCodec}, the helpers every binary serializer shares.
 *
 * <pre>
 *   id  type        payload
 *    1  String      UTF-8 bytes, no length (the frame gives it)
 *    2  byte[]      the bytes
 *    3  Integer     int32
 *    4  Long        int64
 *    5  Double      IEEE 754 bits, int64
 *    6  Float       IEEE 754 bits, int32
 *    7  Short       int16
 *    8  Byte        int8
 *    9  Boolean     int8, 0 or 1
 *   10  Character   uint16
 * </pre>
 */
public final class BuiltInSerializers {

    public static final int STRING_ID = 1;
    public static final int BYTES_ID = 2;
    public static final int INTEGER_ID = 3;
    public static final int LONG_ID = 4;
    public static final int DOUBLE_ID = 5;
    public static final int FLOAT_ID = 6;
    public static final int SHORT_ID = 7;
    public static final int BYTE_ID = 8;
    public static final int BOOLEAN_ID = 9;
    public static final int CHARACTER_ID = 10;

    static final ByteOrder ORDER = ByteOrder.BIG_ENDIAN;

    private BuiltInSerializers() {
    }

    /** Registers every built-in; called by {@link SerializerRegistry.Builder}'s constructor. */
    public static void registerAll(SerializerRegistry.Builder b) {
        b.register(String.class, STRING);
        b.register(byte[].class, BYTES);
        b.register(Integer.class, INTEGER);
        b.register(Long.class, LONG);
        b.register(Double.class, DOUBLE);
        b.register(Float.class, FLOAT);
        b.register(Short.class, SHORT);
        b.register(Byte.class, BYTE);
        b.register(Boolean.class, BOOLEAN);
        b.register(Character.class, CHARACTER);
    }

    public static final Serializer<String> STRING = new Serializer<>() {
        @Override
        public int id() {
            return STRING_ID;
        }

        @Override
        public int write(String s, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return BinaryCodec.putUtf8(buffer, offset, s);
        }

        @Override
        public String read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return BinaryCodec.getUtf8(buffer, offset, length);
        }

        @Override
        public String toString() {
            return "StringSerializer";
        }
    };

    public static final Serializer<byte[]> BYTES = new Simple<>(BYTES_ID, "BytesSerializer") {
        @Override
        public int write(byte[] b, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putBytes(offset, b);
            return b.length;
        }

        @Override
        public byte[] read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            final byte[] b = new byte[length];
            buffer.getBytes(offset, b);
            return b;
        }
    };

    public static final Serializer<Integer> INTEGER = new Simple<>(INTEGER_ID, "IntegerSerializer") {
        @Override
        public int write(Integer v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putInt(offset, v, ORDER);
            return 4;
        }

        @Override
        public Integer read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(4, length, "Integer");
            return buffer.getInt(offset, ORDER);
        }
    };

    public static final Serializer<Long> LONG = new Simple<>(LONG_ID, "LongSerializer") {
        @Override
        public int write(Long v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, v, ORDER);
            return 8;
        }

        @Override
        public Long read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(8, length, "Long");
            return buffer.getLong(offset, ORDER);
        }
    };

    public static final Serializer<Double> DOUBLE = new Simple<>(DOUBLE_ID, "DoubleSerializer") {
        @Override
        public int write(Double v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, Double.doubleToRawLongBits(v), ORDER);
            return 8;
        }

        @Override
        public Double read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(8, length, "Double");
            return Double.longBitsToDouble(buffer.getLong(offset, ORDER));
        }
    };

    public static final Serializer<Float> FLOAT = new Simple<>(FLOAT_ID, "FloatSerializer") {
        @Override
        public int write(Float v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putInt(offset, Float.floatToRawIntBits(v), ORDER);
            return 4;
        }

        @Override
        public Float read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(4, length, "Float");
            return Float.intBitsToFloat(buffer.getInt(offset, ORDER));
        }
    };

    public static final Serializer<Short> SHORT = new Simple<>(SHORT_ID, "ShortSerializer") {
        @Override
        public int write(Short v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putShort(offset, v, ORDER);
            return 2;
        }

        @Override
        public Short read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(2, length, "Short");
            return buffer.getShort(offset, ORDER);
        }
    };

    public static final Serializer<Byte> BYTE = new Simple<>(BYTE_ID, "ByteSerializer") {
        @Override
        public int write(Byte v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putByte(offset, v);
            return 1;
        }

        @Override
        public Byte read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(1, length, "Byte");
            return buffer.getByte(offset);
        }
    };

    public static final Serializer<Boolean> BOOLEAN = new Simple<>(BOOLEAN_ID, "BooleanSerializer") {
        @Override
        public int write(Boolean v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putByte(offset, (byte) (v ? 1 : 0));
            return 1;
        }

        @Override
        public Boolean read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(1, length, "Boolean");
            return buffer.getByte(offset) != 0;
        }
    };

    public static final Serializer<Character> CHARACTER = new Simple<>(CHARACTER_ID, "CharacterSerializer") {
        @Override
        public int write(Character v, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putChar(offset, v, ORDER);
            return 2;
        }

        @Override
        public Character read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            expectLength(2, length, "Character");
            return buffer.getChar(offset, ORDER);
        }
    };

    /** A fixed-size payload of another size is not this type: refused instead of read past or short. */
    static void expectLength(int expected, int length, String type) {
        if (length != expected) {
            throw new IllegalArgumentException(type + " payload of " + length + " bytes, expected " + expected);
        }
    }

    private abstract static class Simple<T> implements Serializer<T> {
        private final int id;
        private final String name;

        Simple(int id, String name) {
            this.id = id;
            this.name = name;
        }

        @Override
        public final int id() {
            return id;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
