package dev.troupe.cluster.sharding;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.PostStop;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The entity of the sharding tests over the real transport, with binary serializers for its
 * messages: it counts the {@link Add}s it processes, answers {@link Get} with the count, stops on
 * {@link Stop}, and reports its start, its stop and each message it processed to a {@link Sink}
 * (in one JVM the books themselves, across JVMs a remote checker actor fed {@link Report}s).
 */
public final class Tally {

    public sealed interface Command permits Add, Get, Stop, StopAcked {
    }

    /** The checker has recorded this entity's stop (across JVMs, before the entity lets its shard go). */
    enum StopAcked implements Command { INSTANCE }

    /** @param seq the message's unique sequence number */
    public record Add(long seq) implements Command {
    }

    /** @param replyTo receives the count */
    record Get(ActorRef<Long> replyTo) implements Command {
    }

    /** The stop message (hand-off, passivation). */
    enum Stop implements Command { INSTANCE }

    static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Tally");

    /** Where an entity reports; called on the entity's thread. */
    interface Sink {
        void started(String entityId, String node);

        void stopped(String entityId, String node);

        void processed(String entityId, long seq, String node);

        /**
         * The entity got its stop message. Across JVMs the report must reach the checker before the
         * shard moves (another node's start report could overtake it on another connection), so a
         * sink may ask the entity to wait for {@link StopAcked}.
         *
         * @return whether the entity waits for {@link StopAcked} before it stops
         */
        default boolean stopping(String entityId, String node, ActorRef<Command> self) {
            stopped(entityId, node);
            return false;
        }
    }

    /**
     * What a child JVM reports to the checker: an entity's start or stop, a processed message, or
     * a dead letter of one of the test's messages (its reason in {@code text}).
     */
    record Report(byte kind, String entityId, String text, long seq, ActorRef<Command> ack) {
        static final byte STARTED = 1;
        static final byte STOPPED = 2;
        static final byte PROCESSED = 3;
        static final byte DEAD = 4;
        /** Every report the node sent before this one has arrived ({@code text}: the node). */
        static final byte SYNC = 5;
    }

    private Tally() {
    }

    static Behavior<Command> create(String entityId, String node, Sink sink) {
        return Behaviors.setup(c -> {
            sink.started(entityId, node);
            final long[] count = {0};
            final boolean[] stopReported = {false};
            return Behaviors.receive((cc, msg) -> {
                if (msg instanceof Add a) {
                    count[0]++;
                    sink.processed(entityId, a.seq(), node);
                } else if (msg instanceof Get g) {
                    g.replyTo().tell(count[0]);
                } else if (msg == Stop.INSTANCE) {
                    stopReported[0] = true;
                    if (!sink.stopping(entityId, node, cc.self())) {
                        return Behaviors.stopped();
                    }
                } else if (msg == StopAcked.INSTANCE) {
                    return Behaviors.stopped();
                }
                return Behaviors.same();
            }, (cc, signal) -> {
                if (signal instanceof PostStop && !stopReported[0]) {
                    sink.stopped(entityId, node);
                }
                return Behaviors.same();
            });
        });
    }

    /** The serializers of this file's messages (ids 210 to 213), added to a registry under construction. */
    static SerializerRegistry.Builder register(SerializerRegistry.Builder b) {
        return b.register(Add.class, ADD).register(Get.class, GET).register(Stop.class, STOP).register(Report.class, REPORT)
            .register(StopAcked.class, STOP_ACKED);
    }

    static final Serializer<Add> ADD = new Serializer<>() {
        @Override
        public int id() {
            return 210;
        }

        @Override
        public int write(Add m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putLong(offset, m.seq(), ByteOrder.BIG_ENDIAN);
            return 8;
        }

        @Override
        public Add read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            if (length != 8) {
                throw new IllegalArgumentException("Add of " + length + " bytes");
            }
            return new Add(buffer.getLong(offset, ByteOrder.BIG_ENDIAN));
        }
    };

    static final Serializer<Get> GET = new Serializer<>() {
        @Override
        public int id() {
            return 211;
        }

        @Override
        public int write(Get m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return Serializer.writeRef(buffer, offset, m.replyTo(), Long.class, refs);
        }

        @Override
        public Get read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            if (length != 4) {
                throw new IllegalArgumentException("Get of " + length + " bytes");
            }
            return new Get(Serializer.readRef(buffer, offset, refs));
        }
    };

    static final Serializer<Stop> STOP = new Serializer<>() {
        @Override
        public int id() {
            return 212;
        }

        @Override
        public int write(Stop m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return 0;
        }

        @Override
        public Stop read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return Stop.INSTANCE;
        }
    };

    static final Serializer<StopAcked> STOP_ACKED = new Serializer<>() {
        @Override
        public int id() {
            return 214;
        }

        @Override
        public int write(StopAcked m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            return 0;
        }

        @Override
        public StopAcked read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            return StopAcked.INSTANCE;
        }
    };

    /** kind | seq | ack ref | id length | id | text. */
    static final Serializer<Report> REPORT = new Serializer<>() {
        @Override
        public int id() {
            return 213;
        }

        @Override
        public int write(Report m, MutableDirectBuffer buffer, int offset, RefWriter refs) {
            buffer.putByte(offset, m.kind());
            buffer.putLong(offset + 1, m.seq(), ByteOrder.BIG_ENDIAN);
            Serializer.writeRef(buffer, offset + 9, m.ack(), Command.class, refs);
            final byte[] id = m.entityId().getBytes(StandardCharsets.UTF_8);
            final byte[] text = m.text().getBytes(StandardCharsets.UTF_8);
            buffer.putShort(offset + 13, (short) id.length, ByteOrder.BIG_ENDIAN);
            buffer.putBytes(offset + 15, id);
            buffer.putBytes(offset + 15 + id.length, text);
            return 15 + id.length + text.length;
        }

        @Override
        public Report read(DirectBuffer buffer, int offset, int length, Class<?> type, RefResolver refs) {
            final int idLength = buffer.getShort(offset + 13, ByteOrder.BIG_ENDIAN);
            if (idLength < 0 || 15 + idLength > length) {
                throw new IllegalArgumentException("Report with an id of " + idLength + " bytes in " + length);
            }
            return new Report(buffer.getByte(offset), buffer.getStringWithoutLengthUtf8(offset + 15, idLength),
                buffer.getStringWithoutLengthUtf8(offset + 15 + idLength, length - 15 - idLength), buffer.getLong(offset + 1, ByteOrder.BIG_ENDIAN),
                Serializer.readRef(buffer, offset + 9, refs));
        }
    };
}
