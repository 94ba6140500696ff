package dev.troupe.cluster.multijvm;

import dev.troupe.actor.ActorRef;
import dev.troupe.remote.Serializer;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The multi-node tests' service message: a worker answers {@link Done} with its node's name.
 *
 * @param seq a sequence number
 * @param replyTo where the answer goes
 */
public record Work(long seq, ActorRef<Done> replyTo) {

    /**
     * A worker's answer.
     *
     * @param seq the work's sequence number
     * @param node the name of the node that did it
     */
    public record Done(long seq, String node) {
    }

    public static final Serializer<Work> SERIALIZER = new Serializer<>() {
        @Override
        public int id() {
            return 200;
        }

        @Override
        public int write(Work w, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, w.seq(), ByteOrder.BIG_ENDIAN);
            return 8 + Serializer.writeRef(buffer, offset + 8, w.replyTo(), Done.class, refs);
        }

        @Override
        public Work read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Work(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), Serializer.readRef(buffer, offset + 8, refs));
        }
    };

    public static final Serializer<Done> DONE_SERIALIZER = new Serializer<>() {
        @Override
        public int id() {
            return 201;
        }

        @Override
        public int write(Done d, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, d.seq(), ByteOrder.BIG_ENDIAN);
            final byte[] name = d.node().getBytes(StandardCharsets.UTF_8);
            buffer.putBytes(offset + 8, name);
            return 8 + name.length;
        }

        @Override
        public Done read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            final byte[] name = new byte[length - 8];
            buffer.getBytes(offset + 8, name);
            return new Done(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), new String(name, StandardCharsets.UTF_8));
        }
    };
}
