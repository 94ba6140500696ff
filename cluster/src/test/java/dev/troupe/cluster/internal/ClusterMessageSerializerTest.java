package dev.troupe.cluster.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.cluster.Address;
import dev.troupe.cluster.spi.ClusterMessage;
import dev.troupe.cluster.spi.ClusterMessage.MemberInfo;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDelta;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistDigest;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistEntry;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistResync;
import dev.troupe.cluster.spi.ClusterMessage.ReceptionistSnapshot;
import dev.troupe.cluster.MemberStatus;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.UniqueAddress;
import dev.troupe.remote.Serializer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster's wire form: each message kind round-trips, two layouts are pinned as golden bytes
 * (a change is a visible diff), the sender is the authenticated one whatever the message says,
 * and bad input fails with a clear error before anything large is allocated.
 */
class ClusterMessageSerializerTest {

    private static final ClusterMessageSerializer SERIALIZER = new ClusterMessageSerializer();
    private static final ActorPath SENDER = ActorPath.root("shop", "10.0.0.2", 25520);
    private static final long SENDER_UID = 0x0102030405060708L;

    /** A ref by path, as a transport hands them to serializers. */
    private record PathRef<T>(ActorPath path) implements ActorRef<T> {
        @Override
        public void tell(T message) {
        }
    }

    /** Ids for refs in order of first write, resolved back to the same refs, with a sender identity. */
    private static final class Refs implements Serializer.RefWriter, Serializer.RefResolver {
        final List<ActorRef<?>> refs = new ArrayList<>();
        final List<Class<?>> types = new ArrayList<>();
        ActorPath sender = SENDER;
        long uid = SENDER_UID;

        @Override
        public int idOf(ActorRef<?> ref) {
            return idOf(ref, Object.class);
        }

        @Override
        public int idOf(ActorRef<?> ref, Class<?> messageType) {
            final int i = refs.indexOf(ref);
            if (i >= 0) {
                return i + 1;
            }
            refs.add(ref);
            types.add(messageType);
            return refs.size();
        }

        @Override
        @SuppressWarnings("unchecked")
        public <M> ActorRef<M> resolve(int id) {
            return id == 0 ? null : (ActorRef<M>) refs.get(id - 1);
        }

        @Override
        public ActorPath senderAddress() {
            return sender;
        }

        @Override
        public long senderUid() {
            return uid;
        }
    }

    private static final ServiceKey<String> KEY = ServiceKey.create(String.class, "inventory");
    private static final ActorRef<String> WORKER = new PathRef<>(SENDER.child("user").child("worker"));
    private static final UniqueAddress FROM = new UniqueAddress(Address.of(SENDER), SENDER_UID);

    private static byte[] write(ClusterMessage m, Refs refs) {
        final ExpandableArrayBuffer b = new ExpandableArrayBuffer(16);
        final int n = SERIALIZER.write(new PeerMessage(null, m), b, 0, refs);
        final byte[] out = new byte[n];
        b.getBytes(0, out);
        return out;
    }

    private static PeerMessage read(byte[] bytes, Refs refs) {
        return SERIALIZER.read(new UnsafeBuffer(bytes), 0, bytes.length, null, refs);
    }

    private static PeerMessage roundTrip(ClusterMessage m) {
        final Refs refs = new Refs();
        return read(write(m, refs), refs);
    }

    @Test
    void everyKindRoundTripsAndTheSenderIsTheAuthenticatedOne() {
        final MemberInfo info = new MemberInfo(FROM, MemberStatus.LEAVING, new LinkedHashSet<>(List.of("api", "worker")), "2.1.0");
        final PeerMessage back = roundTrip(info);
        assertThat(back.message()).isEqualTo(info);
        assertThat(back.from()).isEqualTo(FROM);

        final ReceptionistEntry entry = new ReceptionistEntry(KEY, WORKER);
        assertThat(roundTrip(new ReceptionistSnapshot(7, List.of(entry))).message()).isEqualTo(new ReceptionistSnapshot(7, List.of(entry)));
        final ReceptionistDelta delta = new ReceptionistDelta(7, 8, List.of(entry), List.of(new ReceptionistEntry(ServiceKey.of("a.B", "x"), WORKER)));
        assertThat(roundTrip(delta).message()).isEqualTo(delta);
        assertThat(roundTrip(new ReceptionistDigest(42)).message()).isEqualTo(new ReceptionistDigest(42));
        assertThat(roundTrip(new ReceptionistResync()).message()).isInstanceOf(ReceptionistResync.class);
        final MemberInfo up = new MemberInfo(FROM, MemberStatus.UP, Set.of(), "", 1_700_000_000_123L);
        assertThat(roundTrip(up).message()).isEqualTo(up);
        final UniqueAddress downed = new UniqueAddress(new Address("shop", "10.0.0.9", 25520), -5);
        assertThat(roundTrip(new ClusterMessage.Down(downed)).message()).isEqualTo(new ClusterMessage.Down(downed));
        assertThat(roundTrip(new ClusterMessage.LeaveRequest(downed)).message()).isEqualTo(new ClusterMessage.LeaveRequest(downed));

        // a message claiming another sender still arrives from the authenticated one; membership compares the two
        final UniqueAddress mallory = new UniqueAddress(new Address("shop", "10.6.6.6", 1), 99);
        final PeerMessage claimed = roundTrip(new MemberInfo(mallory, MemberStatus.UP, Set.of(), ""));
        assertThat(claimed.from()).isEqualTo(FROM);
        assertThat(((MemberInfo) claimed.message()).from()).isEqualTo(mallory);
    }

    @Test
    void aRegisteredActorIsSentOutAcceptingOnlyItsKeysClass() {
        final Refs refs = new Refs();
        write(new ReceptionistDelta(0, 1, List.of(new ReceptionistEntry(KEY, WORKER)), List.of()), refs);
        assertThat(refs.types).containsExactly(String.class);
        final Refs byName = new Refs();
        write(new ReceptionistDelta(0, 1, List.of(new ReceptionistEntry(ServiceKey.of("x.Y", "k"), WORKER)), List.of()), byName);
        assertThat(byName.types).containsExactly(Object.class);
    }

    @Test
    void layoutsArePinned() {
        final HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(write(new MemberInfo(new UniqueAddress(new Address("s", "h", 2), 3), MemberStatus.UP, Set.of("r"), "v"), new Refs())))
            .isEqualTo("01" + "0000000173" + "0000000168" + "00000002" + "0000000000000003" + "01" + "0001" + "0000000172" + "0000000176"
                + "0000000000000000");
        assertThat(hex.formatHex(write(new ClusterMessage.Down(new UniqueAddress(new Address("s", "h", 2), 3)), new Refs())))
            .isEqualTo("06" + "0000000173" + "0000000168" + "00000002" + "0000000000000003");
        assertThat(hex.formatHex(write(new ClusterMessage.LeaveRequest(new UniqueAddress(new Address("s", "h", 2), 3)), new Refs())))
            .isEqualTo("07" + "0000000173" + "0000000168" + "00000002" + "0000000000000003");
        assertThat(hex.formatHex(write(new ReceptionistDelta(1, 2, List.of(new ReceptionistEntry(ServiceKey.of("T", "k"), WORKER)), List.of()), new Refs())))
            .isEqualTo("03" + "0000000000000001" + "0000000000000002" + "00000001" + "0000000154" + "000000016b" + "00000001" + "00000000");
        assertThat(hex.formatHex(write(new ReceptionistDigest(5), new Refs()))).isEqualTo("04" + "0000000000000005");
        assertThat(hex.formatHex(write(new ReceptionistResync(), new Refs()))).isEqualTo("05");
    }

    @Test
    void badInputFailsClearlyBeforeAllocatingMuch() {
        final Refs refs = new Refs();
        assertThatThrownBy(() -> read(new byte[] {9}, refs)).hasMessageContaining("unknown cluster message kind 9");
        assertThatThrownBy(() -> read(new byte[] {}, refs)).hasMessageContaining("truncated");
        final byte[] digest = write(new ReceptionistDigest(5), refs);
        assertThatThrownBy(() -> read(java.util.Arrays.copyOf(digest, 5), refs)).hasMessageContaining("truncated");
        assertThatThrownBy(() -> read(java.util.Arrays.copyOf(digest, 10), refs)).hasMessageContaining("bytes after");
        // a string length of 2 GiB, a snapshot claiming a billion entries, a status beyond the enum, too many roles
        assertThatThrownBy(() -> read(hex("01" + "7fffffff"), refs)).hasMessageContaining("at most");
        assertThatThrownBy(() -> read(hex("02" + "0000000000000001" + "3b9aca00"), refs)).hasMessageContaining("receptionist entries in");
        assertThatThrownBy(() -> read(hex("01" + "0000000173" + "0000000168" + "00000002" + "0000000000000003" + "09"), refs))
            .hasMessageContaining("member status 9");
        assertThatThrownBy(() -> read(hex("01" + "0000000173" + "0000000168" + "00000002" + "0000000000000003" + "01" + "0011"), refs))
            .hasMessageContaining("17 roles");
        // a role longer than the cluster allows
        final String longRole = "r".repeat(65);
        final byte[] info = write(new MemberInfo(FROM, MemberStatus.UP, Set.of("ok"), ""), refs);
        assertThat(info).isNotEmpty();
        assertThatThrownBy(() -> read(write(new MemberInfo(FROM, MemberStatus.UP, Set.of(longRole), ""), refs), refs))
            .hasMessageContaining("at most 64");
        // an entry without a ref, and a message that does not come from a peer
        assertThatThrownBy(() -> read(hex("03" + "0000000000000001" + "0000000000000002" + "00000001" + "0000000154" + "000000016b" + "00000000" + "00000000"), refs))
            .hasMessageContaining("without a ref");
        final Refs local = new Refs();
        local.sender = null;
        assertThatThrownBy(() -> read(digest, local)).hasMessageContaining("authenticated peer");
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }
}
