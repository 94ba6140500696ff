package dev.troupe.cluster.sharding.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.sharding.RemoteNodes;
import dev.troupe.cluster.sharding.Tally;
import dev.troupe.remote.Serializer;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The regions' wire format: each message round-trips, the sender is the authenticated peer, hostile bytes are refused. */
class ShardingSerializerTest {

    private static final ActorPath PEER = ActorPath.parse("troupe://shards@10.0.0.9:25520/");
    private static final ActorRef<Object> REGION = new ActorRef<>() {
        @Override
        public void tell(Object message) {
        }

        @Override
        public ActorPath path() {
            return ActorPath.parse("troupe://shards@10.0.0.9:25520/system/sharding-Tally");
        }
    };

    private final SerializerRegistry registry = RemoteNodes.serializers();
    private final ShardingSerializer serializer = (ShardingSerializer) (Object) registry.binding(RegionProtocol.EntityEnvelope.class).serializer();

    {
        serializer.bind(registry);
    }

    private static final Serializer.RefWriter WRITER = new Serializer.RefWriter() {
        @Override
        public int idOf(ActorRef<?> ref) {
            return 7;
        }
    };

    private static Serializer.RefResolver resolver(ActorPath sender, long uid) {
        return new Serializer.RefResolver() {
            @SuppressWarnings("unchecked")
            @Override
            public <M> ActorRef<M> resolve(int id) {
                return id == 7 ? (ActorRef<M>) REGION : null;
            }

            @Override
            public ActorPath senderAddress() {
                return sender;
            }

            @Override
            public long senderUid() {
                return uid;
            }
        };
    }

    private Object roundTrip(RegionProtocol.Wire m) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final int n = serializer.write(m, buffer, 3, WRITER);
        return serializer.read(buffer, 3, n, null, resolver(PEER, 42));
    }

    private Object read(byte[] bytes) {
        return serializer.read(new UnsafeBuffer(bytes), 0, bytes.length, null, resolver(PEER, 42));
    }

    @Test
    void envelopesCarryTheUsersMessageThroughItsOwnSerializer() {
        assertThat(roundTrip(new RegionProtocol.EntityEnvelope("A-1 ünïcødé 😀", new Tally.Add(99), 2)))
            .isEqualTo(new RegionProtocol.EntityEnvelope("A-1 ünïcødé 😀", new Tally.Add(99), 2));
        assertThat(roundTrip(new RegionProtocol.EntityEnvelope("s", "a built-in", 0)))
            .isEqualTo(new RegionProtocol.EntityEnvelope("s", "a built-in", 0));
    }

    @Test
    void theBytesOfAnEnvelopeAreAsDocumented() {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final int n = serializer.write(new RegionProtocol.EntityEnvelope("A-1", new Tally.Add(7), 1), buffer, 0, WRITER);
        final byte[] bytes = new byte[n];
        buffer.getBytes(0, bytes);
        assertThat(bytes).containsExactly(1, 1, 0, 3, 'A', '-', '1', 0, (byte) 210, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7);
    }

    @Test
    void controlMessagesComeFromTheAuthenticatedPeerWhateverTheyClaim() {
        final Address claimed = new Address("shards", "6.6.6.6", 1);
        final Address peer = Address.of(PEER);
        final RegionProtocol.AcquireShards a = (RegionProtocol.AcquireShards) roundTrip(
            new RegionProtocol.AcquireShards(claimed, REGION, new int[] {3, 999}, new long[] {5, Long.MAX_VALUE}));
        assertThat(a.from()).isEqualTo(peer);
        assertThat(a.replyTo()).isSameAs(REGION);
        assertThat(a.shards()).containsExactly(3, 999);
        assertThat(a.epochs()).containsExactly(5, Long.MAX_VALUE);
        final RegionProtocol.ShardsReleased r = (RegionProtocol.ShardsReleased) roundTrip(
            new RegionProtocol.ShardsReleased(claimed, new int[] {1}, new long[] {2}));
        assertThat(r.from()).isEqualTo(peer);
        assertThat(r.shards()).containsExactly(1);
        assertThat(roundTrip(new RegionProtocol.Leaving(claimed, REGION))).isEqualTo(new RegionProtocol.Leaving(peer, REGION));
        assertThat(roundTrip(new RegionProtocol.LeavingSeen(claimed))).isEqualTo(new RegionProtocol.LeavingSeen(peer));
        assertThatThrownBy(() -> serializer.read(new UnsafeBuffer(new byte[] {5}), 0, 1, null, resolver(null, 0)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("authenticated");
    }

    @Test
    void hostileBytesAreRefusedBeforeAnythingIsAllocatedForThem() {
        // a count of shards that the bytes do not hold
        final byte[] acquire = new byte[1 + 4 + 4];
        acquire[0] = ShardingSerializer.ACQUIRE;
        new UnsafeBuffer(acquire).putInt(5, Integer.MAX_VALUE, ByteOrder.BIG_ENDIAN);
        assertThatThrownBy(() -> read(acquire)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shards in");
        // an entity id longer than allowed, or empty
        assertThatThrownBy(() -> read(new byte[] {1, 0, (byte) 0xFF, (byte) 0xFF})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> read(new byte[] {1, 0, 0, 0, 0, 1, 0, 0})).isInstanceOf(IllegalArgumentException.class);
        // a serializer this node does not have
        assertThatThrownBy(() -> read(new byte[] {1, 0, 0, 1, 'x', 0x27, 0x0F, 0, 0}))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serializer 9999");
        // a class no serializer allows, named as a manifest
        final byte[] name = "java.lang.Runtime".getBytes();
        final byte[] manifest = new byte[9 + name.length];
        final UnsafeBuffer b = new UnsafeBuffer(manifest);
        b.putByte(0, (byte) 1);
        b.putShort(2, (short) 1, ByteOrder.BIG_ENDIAN);
        b.putByte(4, (byte) 'x');
        b.putShort(5, (short) 210, ByteOrder.BIG_ENDIAN);
        b.putShort(7, (short) name.length, ByteOrder.BIG_ENDIAN);
        b.putBytes(9, name);
        assertThatThrownBy(() -> read(manifest)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allows");
        // truncated, and an unknown kind
        assertThatThrownBy(() -> read(new byte[] {1, 0})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> read(new byte[] {9})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind");
        assertThatThrownBy(() -> read(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stateRequestsAndAnswersRoundTripFromTheAuthenticatedPeerAndHostileCountsAreRefused() {
        final Address claimed = new Address("shards", "6.6.6.6", 1);
        final Address peer = Address.of(PEER);
        final RegionProtocol.GetRegionState g = (RegionProtocol.GetRegionState) roundTrip(
            new RegionProtocol.GetRegionState(claimed, REGION, 77, 12, "A-ü", 5));
        assertThat(g).isEqualTo(new RegionProtocol.GetRegionState(peer, REGION, 77, 12, "A-ü", 5));
        assertThat(roundTrip(new RegionProtocol.GetRegionState(claimed, REGION, 1, -1, null, 100)))
            .isEqualTo(new RegionProtocol.GetRegionState(peer, REGION, 1, -1, null, 100));
        final RegionProtocol.RegionState r = (RegionProtocol.RegionState) roundTrip(new RegionProtocol.RegionState(claimed, 77,
            new int[] {3, 999}, new int[] {2, 500}, new String[][] {{"a", "b"}, {"ü-1"}}));
        assertThat(r.from()).isEqualTo(peer);
        assertThat(r.requestId()).isEqualTo(77);
        assertThat(r.shards()).containsExactly(3, 999);
        assertThat(r.entities()).containsExactly(2, 500);
        assertThat(r.entityIds()).isDeepEqualTo(new String[][] {{"a", "b"}, {"ü-1"}});

        // more shards than the bytes hold, more ids listed than entities run, more ids than a peer may ask for
        final byte[] state = new byte[1 + 12];
        state[0] = ShardingSerializer.STATE;
        new UnsafeBuffer(state).putInt(9, 1000, ByteOrder.BIG_ENDIAN);
        assertThatThrownBy(() -> read(state)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shards in");
        final byte[] listed = new byte[1 + 12 + 12];
        final UnsafeBuffer lb = new UnsafeBuffer(listed);
        lb.putByte(0, ShardingSerializer.STATE);
        lb.putInt(9, 1, ByteOrder.BIG_ENDIAN);
        lb.putInt(13 + 4, 1, ByteOrder.BIG_ENDIAN);
        lb.putInt(13 + 8, Integer.MAX_VALUE, ByteOrder.BIG_ENDIAN);
        assertThatThrownBy(() -> read(listed)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listed");
        final byte[] ask = new byte[1 + 22];
        final UnsafeBuffer ab = new UnsafeBuffer(ask);
        ab.putByte(0, ShardingSerializer.GET_STATE);
        ab.putInt(1, 7, ByteOrder.BIG_ENDIAN);
        ab.putInt(1 + 12, -1, ByteOrder.BIG_ENDIAN);
        ab.putInt(1 + 16, RegionQueries.MAX_LISTED_IDS + 1, ByteOrder.BIG_ENDIAN);
        assertThatThrownBy(() -> read(ask)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ids");
    }

    @Test
    void anEntityIdTooLongForTheWireFailsTheWrite() {
        final String id = "x".repeat(ShardingSerializer.MAX_ENTITY_ID_BYTES + 1);
        assertThatThrownBy(() -> roundTrip(new RegionProtocol.EntityEnvelope(id, new Tally.Add(1), 0)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("entity id");
    }
}
