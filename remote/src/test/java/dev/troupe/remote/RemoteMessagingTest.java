package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.InvalidSettingException;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.remote.json.Greeting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class RemoteMessagingTest {

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    @Test
    void requestAndReplyAcrossNodesWithReplyToRef() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final ActorRef<Ping> echo = a.actorRef(b.address() + "user/echo", Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(a.system());
        for (int i = 0; i < 100; i++) {
            echo.tell(new Ping(i, probe.ref()));
        }
        for (int i = 0; i < 100; i++) {
            probe.expectMessage(new Ping.Pong(i)); // in order per sender-recipient pair
        }
        final PeerMetrics toBeta = a.metrics().peers().get(0);
        assertThat(toBeta.address()).isEqualTo("beta@127.0.0.1:" + b.address().port());
        assertThat(toBeta.messagesSent()).isEqualTo(100);
        assertThat(toBeta.messagesReceived()).isEqualTo(100);
        assertThat(toBeta.bytesSent()).isGreaterThan(100 * 17);
        assertThat(toBeta.state()).isEqualTo(AssociationState.ACTIVE);
        assertThat(a.metrics().associations(AssociationState.ACTIVE)).isEqualTo(1);
    }

    @Test
    void replyToRefsAlternatingBetweenNodesAndRefsEachReachTheirOwnActor() {
        // one telling thread writes two refs to two nodes in every order: the writer's cache of the
        // last ref written must never hand one node's id (or one ref's id) to another
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final RemoteTransport c = kit.node("gamma");
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        c.publish(c.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final List<ActorRef<Ping>> echoes = List.of(a.actorRef(b.address() + "user/echo", Ping.class),
            a.actorRef(c.address() + "user/echo", Ping.class));
        final List<TestProbe<Ping.Pong>> probes = List.of(TestProbe.create(a.system()), TestProbe.create(a.system()));
        final List<List<Ping.Pong>> expected = List.of(new java.util.ArrayList<>(), new java.util.ArrayList<>());
        for (int i = 0; i < 400; i++) {
            final int node = i % 2;
            final int probe = (i / 2) % 2 == 0 ? 0 : (i % 3 == 0 ? 0 : 1);
            echoes.get(node).tell(new Ping(i, probes.get(probe).ref()));
            expected.get(probe).add(new Ping.Pong(i));
        }
        for (int p = 0; p < 2; p++) {
            assertThat(probes.get(p).receiveMessages(expected.get(p).size(), Duration.ofSeconds(10)))
                .containsExactlyInAnyOrderElementsOf(expected.get(p));
            probes.get(p).expectNoMessage(Duration.ofMillis(100)); // nothing meant for the other ref arrived here
        }
    }

    @Test
    void messagesWhoseSizeSettlesAndThenChangesArriveWholeAndInOrder() {
        // one telling thread (this one): its claim in the small lane learns the size messages take,
        // becomes exactly that size after a run of equal ones, and must give way to a larger message
        // (serialized again and copied), a smaller one, and sizes that vary every message
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final List<byte[]> received = new CopyOnWriteArrayList<>();
        b.publish(b.system().spawn(Behaviors.<byte[]>receiveMessage(m -> {
            received.add(m);
            return Behaviors.same();
        }), "bytes"), byte[].class);
        final ActorRef<byte[]> bytes = a.actorRef(b.address() + "user/bytes", byte[].class);
        final List<Integer> sizes = new java.util.ArrayList<>();
        for (int run = 0; run < 3; run++) {
            for (int i = 0; i < 40; i++) {
                sizes.add(100); // settles: an exact claim
            }
            sizes.add(3000); // larger than the exact claim: a miss
            for (int i = 0; i < 40; i++) {
                sizes.add(100 + 37 * i % 900); // varying
            }
            sizes.add(20); // smaller than any claim
        }
        for (int i = 0; i < sizes.size(); i++) {
            final byte[] m = new byte[sizes.get(i)];
            java.util.Arrays.fill(m, (byte) i);
            bytes.tell(m);
        }
        RemoteTestKit.await("every message delivered", Duration.ofSeconds(10), () -> received.size() == sizes.size());
        for (int i = 0; i < sizes.size(); i++) {
            final byte[] m = received.get(i);
            assertThat(m).as("message " + i).hasSize(sizes.get(i));
            for (byte x : m) {
                assertThat(x).as("message " + i + " content").isEqualTo((byte) i);
            }
        }
    }

    @Test
    void aMessageLargerThanTheLargestFrameIsADeadLetterAndTheLargestOneArrives() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final List<byte[]> received = new CopyOnWriteArrayList<>();
        b.publish(b.system().spawn(Behaviors.<byte[]>receiveMessage(m -> {
            received.add(m);
            return Behaviors.same();
        }), "bytes"), byte[].class);
        final ActorRef<byte[]> bytes = a.actorRef(b.address() + "user/bytes", byte[].class);
        final int maxFrame = a.settings().maxFrameSize();
        // the frame limit: type byte, 13-byte USER header, payload; with the default (smallest) outbound
        // buffer a record also carries 16 local bytes in an eighth of the buffer, which takes 15 more
        final int largest = Math.min(maxFrame - 1, a.settings().outboundBufferSize() / 8 - 16) - 13;
        bytes.tell(new byte[maxFrame - 1 - 13]); // exactly the frame limit: a dead letter, not an exception
        bytes.tell(new byte[largest + 1]);
        bytes.tell(new byte[largest]);
        RemoteTestKit.await("the largest message delivered", Duration.ofSeconds(5), () -> received.size() == 1);
        assertThat(received.get(0)).hasSize(largest);
        assertThat(a.system().deadLetters().count(DeadLetterReason.SERIALIZATION_FAILED)).isEqualTo(2);
    }

    @Test
    void jacksonRecordWithRefAndBuiltInsRoundTrip() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        b.publish(b.system().spawn(Behaviors.<Greeting>receiveMessage(g -> {
            g.replyTo().tell(new Greeting(g.text().toUpperCase(), List.of(g.numbers().size()), null));
            return Behaviors.same();
        }), "greeter"), Greeting.class);
        final List<Object> received = new CopyOnWriteArrayList<>();
        b.publish(b.system().spawn(Behaviors.receiveMessage(m -> {
            received.add(m);
            return Behaviors.same();
        }), "sink"), Object.class);
        final TestProbe<Greeting> probe = TestProbe.create(a.system());
        a.actorRef(b.address() + "user/greeter", Greeting.class).tell(new Greeting("héllo €𝄞", List.of(1, 2, 3), probe.ref()));
        assertThat(probe.receiveMessage()).isEqualTo(new Greeting("HÉLLO €𝄞", List.of(3), null));

        final ActorRef<Object> sink = a.actorRef(b.address() + "user/sink", Object.class);
        final Object[] values = {"text ü", new byte[] {1, 2, 3}, 42, 42L, 1.5d, 2.5f, (short) 7, (byte) -3, true, 'x'};
        for (Object v : values) {
            sink.tell(v);
        }
        RemoteTestKit.await("all built-ins", Duration.ofSeconds(5), () -> received.size() == values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof byte[]) {
                assertThat((byte[]) received.get(i)).containsExactly(1, 2, 3);
            } else {
                assertThat(received.get(i)).isEqualTo(values[i]);
            }
        }
    }

    @Test
    void typeWithoutSerializerGoesToDeadLettersAtTell() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final List<DeadLetter> dead = new CopyOnWriteArrayList<>();
        a.system().deadLetters().subscribe(dead::add);
        final ActorRef<Object> ref = a.actorRef(b.address() + "user/anything", Object.class);
        final Object unserializable = new Object();
        ref.tell(unserializable);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).reason()).isEqualTo(DeadLetterReason.NO_SERIALIZER);
        assertThat(dead.get(0).message()).isSameAs(unserializable);
        assertThat(a.system().deadLetters().count(DeadLetterReason.NO_SERIALIZER)).isEqualTo(1);
    }

    @Test
    void messageForMissingActorGoesToDeadLettersOnReceiver() {
        final RemoteTransport a = kit.node("alpha");
        final RemoteTransport b = kit.node("beta");
        final List<DeadLetter> dead = new CopyOnWriteArrayList<>();
        b.system().deadLetters().subscribe(dead::add);
        a.actorRef(b.address() + "user/nobody", String.class).tell("lost");
        RemoteTestKit.await("dead letter", Duration.ofSeconds(5), () -> !dead.isEmpty());
        assertThat(dead.get(0).reason()).isEqualTo(DeadLetterReason.UNKNOWN_RECIPIENT);
        assertThat(dead.get(0).message()).isEqualTo("lost");
        // the connection stays usable
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(a.system());
        a.actorRef(b.address() + "user/echo", Ping.class).tell(new Ping(1, probe.ref()));
        probe.expectMessage(new Ping.Pong(1));
    }

    @Test
    void invalidSettingsNameTheBuilderMethod() {
        final InvalidSettingException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class,
            () -> RemoteSettings.builder().build());
        assertThat(e.setting()).isEqualTo("RemoteSettings.Builder.secret");
        assertThat(e.getMessage()).contains("insecure(true)").doesNotContain("troupe.");
        assertThat(RemoteSettings.builder().insecure(true).build().bindHost()).isEqualTo("127.0.0.1");
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class,
            () -> RemoteSettings.builder().secret("short").build()).setting()).isEqualTo("RemoteSettings.Builder.secret");
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class,
            () -> RemoteSettings.builder().insecure(true).maxFrameSize(10).build()).setting()).isEqualTo("RemoteSettings.Builder.maxFrameSize");
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class,
            () -> RemoteSettings.builder().insecure(true).canonicalHost("evil\r\nhost").build()).setting())
            .isEqualTo("RemoteSettings.Builder.canonicalHost");
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class,
            () -> RemoteSettings.builder().insecure(true).maxPathDepth(1).build()).setting()).isEqualTo("RemoteSettings.Builder.maxPathDepth");
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(InvalidSettingException.class,
            () -> RemoteSettings.builder().insecure(true).maxQueueTime(Duration.ZERO).build()).setting()).isEqualTo("RemoteSettings.Builder.maxQueueTime");
    }

    @Test
    void insecureModeWorksWhenBothSidesSetIt() {
        final RemoteTransport a = kit.node("alpha", RemoteTestKit.settings().secret((String) null).insecure(true));
        final RemoteTransport b = kit.node("beta", RemoteTestKit.settings().secret((String) null).insecure(true));
        b.publish(b.system().spawn(RemoteTestKit.echo(), "echo"), Ping.class);
        final TestProbe<Ping.Pong> probe = TestProbe.create(a.system());
        a.actorRef(b.address() + "user/echo", Ping.class).tell(new Ping(7, probe.ref()));
        probe.expectMessage(new Ping.Pong(7));
    }
}
