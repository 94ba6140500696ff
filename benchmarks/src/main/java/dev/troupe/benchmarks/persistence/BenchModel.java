package dev.troupe.benchmarks.persistence;

import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The event both sides persist: 108 bytes through a binary serializer (id, amount, 88 bytes of
 * data), and the state both snapshot (16 bytes).
 */
public final class BenchModel {

    private BenchModel() {
    }

    /** The 88 bytes every event carries (shared: the benchmark measures the journal, not the making of data). */
    static final byte[] DATA = new byte[88];

    static {
        for (int i = 0; i < DATA.length; i++) {
            DATA[i] = (byte) ('a' + i % 26);
        }
    }

    /** The event: 8 + 8 + 4 + 88 = 108 bytes serialized. */
    public record BenchEvent(long id, long amount, byte[] data) {
    }

    /** The state. */
    public record BenchState(long count, long sum) {
    }

    static final int EVENT_BYTES = 108;

    static void writeEvent(BenchEvent e, ByteBuffer out) {
        out.putLong(e.id()).putLong(e.amount()).putInt(e.data().length).put(e.data());
    }

    static BenchEvent readEvent(ByteBuffer in) {
        final long id = in.getLong();
        final long amount = in.getLong();
        final byte[] data = new byte[in.getInt()];
        in.get(data);
        return new BenchEvent(id, amount, data);
    }

    /** Troupe's serializer of the event. */
    public static final class EventSerializer implements Serializer<BenchEvent> {
        @Override
        public int id() {
            return 801;
        }

        @Override
        public int write(BenchEvent m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, m.id(), ByteOrder.BIG_ENDIAN);
            buffer.putLong(offset + 8, m.amount(), ByteOrder.BIG_ENDIAN);
            buffer.putInt(offset + 16, m.data().length, ByteOrder.BIG_ENDIAN);
            buffer.putBytes(offset + 20, m.data());
            return 20 + m.data().length;
        }

        @Override
        public BenchEvent read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            final byte[] data = new byte[buffer.getInt(offset + 16, ByteOrder.BIG_ENDIAN)];
            buffer.getBytes(offset + 20, data);
            return new BenchEvent(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), buffer.getLong(offset + 8, ByteOrder.BIG_ENDIAN), data);
        }
    }

    /** Troupe's serializer of the state. */
    public static final class StateSerializer implements Serializer<BenchState> {
        @Override
        public int id() {
            return 802;
        }

        @Override
        public int write(BenchState m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, m.count(), ByteOrder.BIG_ENDIAN);
            buffer.putLong(offset + 8, m.sum(), ByteOrder.BIG_ENDIAN);
            return 16;
        }

        @Override
        public BenchState read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new BenchState(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), buffer.getLong(offset + 8, ByteOrder.BIG_ENDIAN));
        }
    }

    static SerializerRegistry troupeRegistry() {
        return SerializerRegistry.builder()
            .register(BenchEvent.class, new EventSerializer())
            .register(BenchState.class, new StateSerializer())
            .build();
    }

    /** Pekko's serializer of both (Pekko's API hands over a byte[] per event). */
    public static final class PekkoSerializer extends org.apache.pekko.serialization.JSerializer {
        @Override
        public int identifier() {
            return 80_801;
        }

        @Override
        public boolean includeManifest() {
            return true;
        }

        @Override
        public byte[] toBinary(Object o) {
            if (o instanceof BenchEvent e) {
                final ByteBuffer b = ByteBuffer.allocate(EVENT_BYTES);
                writeEvent(e, b);
                return b.array();
            }
            final BenchState s = (BenchState) o;
            return ByteBuffer.allocate(16).putLong(s.count()).putLong(s.sum()).array();
        }

        @Override
        public Object fromBinaryJava(byte[] bytes, Class<?> manifest) {
            final ByteBuffer b = ByteBuffer.wrap(bytes);
            if (manifest == BenchState.class) {
                return new BenchState(b.getLong(), b.getLong());
            }
            return readEvent(b);
        }
    }
}
