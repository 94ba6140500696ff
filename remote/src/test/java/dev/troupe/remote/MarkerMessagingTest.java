package dev.troupe.remote;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.remote.markers.Counter;
import dev.troupe.remote.markers.Drawing;
import dev.troupe.remote.markers.Note;
import dev.troupe.remote.markers.Shape;
import dev.troupe.remote.markers.Unmarked;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** Two nodes over loopback whose registries hold the built-ins and the marker serializers only: nothing written by hand. */
class MarkerMessagingTest {

    private final RemoteTestKit kit = new RemoteTestKit();

    @AfterEach
    void tearDown() {
        kit.close();
    }

    private static RemoteSettings.Builder markersOnly() {
        return RemoteTestKit.settings().serializers(dev.troupe.remote.jackson.JacksonSerializer.registerMarkers(SerializerRegistry.builder()).build());
    }

    private static Behavior<Counter> counter() {
        return Behaviors.setup(ctx -> {
            final long[] count = {0};
            return Behaviors.receiveMessage(new java.util.function.Function<Counter, Behavior<Counter>>() {
                @Override
                public Behavior<Counter> apply(Counter c) {
                    if (c instanceof Counter.Increment i) {
                        count[0] += i.by();
                    } else if (c instanceof Counter.Get g) {
                        g.replyTo().tell(new Counter.Value(count[0], ctx.self().path().name()));
                    } else if (c instanceof Counter.Batch b) {
                        b.commands().forEach(this::apply);
                    }
                    return Behaviors.same();
                }
            });
        });
    }

    @Test
    void sealedCommandsNestedRefsAndJsonNotesTravelWithMarkerSerializersOnly() {
        final RemoteTransport a = kit.node("alpha", markersOnly());
        final RemoteTransport b = kit.node("beta", markersOnly());
        b.publish(b.system().spawn(counter(), "counter"), Counter.class);
        final ActorRef<Counter> remoteCounter = a.actorRef(b.address() + "user/counter", Counter.class);
        final TestProbe<Counter.Value> probe = TestProbe.create(a.system());
        remoteCounter.tell(new Counter.Increment(2));
        remoteCounter.tell(new Counter.Batch(List.of(new Counter.Increment(3), new Counter.Batch(List.of(new Counter.Increment(5))),
            new Counter.Get(probe.ref()))));
        assertThat(probe.receiveMessage()).isEqualTo(new Counter.Value(10, "counter"));

        // a drawing with refs inside: beta forwards to the refs it finds, which point back to alpha and to beta itself
        final ActorRef<Counter> localCounter = a.system().spawn(counter(), "local-counter");
        final TestProbe<Counter.Value> watcher = TestProbe.create(a.system());
        b.publish(b.system().spawn(Behaviors.<Drawing>receiveMessage(d -> {
            d.target().tell(new Counter.Increment(d.shape() instanceof Shape.Circle c ? (int) c.radius() : -1));
            d.next().ifPresent(d.target()::tell);
            for (ActorRef<Counter.Value> w : d.watchers()) {
                w.tell(new Counter.Value(d.more().size(), "seen"));
            }
            return Behaviors.same();
        }), "painter"), Drawing.class);
        a.actorRef(b.address() + "user/painter", Drawing.class).tell(new Drawing(new Shape.Circle(4), List.of(new Shape.Square(1)),
            localCounter, List.of(watcher.ref()), Optional.of(new Counter.Get(watcher.ref())), new Counter.Batch(List.of())));
        // "seen" comes straight from beta, the count from alpha's counter once beta's Get reached it: either may be first
        assertThat(watcher.receiveMessages(2)).containsExactlyInAnyOrder(new Counter.Value(1, "seen"),
            new Counter.Value(4, "local-counter"));

        // JSON-marked
        b.publish(b.system().spawn(Behaviors.<Note>receiveMessage(n -> {
            n.replyTo().tell(new Note(n.text() + "!", null));
            return Behaviors.same();
        }), "notes"), Note.class);
        final TestProbe<Note> notes = TestProbe.create(a.system());
        a.actorRef(b.address() + "user/notes", Note.class).tell(new Note("hi", notes.ref()));
        assertThat(notes.receiveMessage()).isEqualTo(new Note("hi!", null));
    }

    @Test
    void anUnmarkedMessageIsADeadLetterAtTellAndNothingElseIsLost() {
        final RemoteTransport a = kit.node("alpha", markersOnly());
        final RemoteTransport b = kit.node("beta", markersOnly());
        b.publish(b.system().spawn(counter(), "counter"), Object.class);
        final List<DeadLetter> dead = new CopyOnWriteArrayList<>();
        a.system().deadLetters().subscribe(dead::add);
        final ActorRef<Object> ref = a.actorRef(b.address() + "user/counter", Object.class);
        final Unmarked unmarked = new Unmarked("no");
        ref.tell(unmarked);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).reason()).isEqualTo(DeadLetterReason.NO_SERIALIZER);
        assertThat(dead.get(0).message()).isSameAs(unmarked);
        final TestProbe<Counter.Value> probe = TestProbe.create(a.system());
        ref.tell(new Counter.Increment(1));
        ref.tell(new Counter.Get(probe.ref()));
        assertThat(probe.receiveMessage(Duration.ofSeconds(10))).isEqualTo(new Counter.Value(1, "counter"));
    }
}
