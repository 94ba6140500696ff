package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/** A test message with a reply-to ref, and its binary serializer (id 100). */
public record Ping(long seq, ActorRef<Pong> replyTo) {

    /** The reply. */
    public record Pong(long seq) {
    }

    public static final Serializer<Ping> SERIALIZER = new Serializer<>() {
        @Override
        public int id() {
            return 100;
        }

        @Override
        public int write(Ping p, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, p.seq(), ByteOrder.BIG_ENDIAN);
            return 8 + Serializer.writeRef(buffer, offset + 8, p.replyTo(), Pong.class, refs);
        }

        @Override
        public Ping read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Ping(buffer.getLong(offset, ByteOrder.BIG_ENDIAN), Serializer.readRef(buffer, offset + 8, refs));
        }
    };

    public static final Serializer<Pong> PONG_SERIALIZER = new Serializer<>() {
        @Override
        public int id() {
            return 101;
        }

        @Override
        public int write(Pong p, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, p.seq(), ByteOrder.BIG_ENDIAN);
            return 8;
        }

        @Override
        public Pong read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return new Pong(buffer.getLong(offset, ByteOrder.BIG_ENDIAN));
        }
    };
}
