package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The classes that factories are given are used: dead letters and probes name message types. */
class MessageTypesTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    sealed interface Command {
    }

    record Saved(String id) implements Command {
    }

    record SaveFailed(String reason) implements Command {
    }

    record Stop() implements Command {
    }

    private static CopyOnWriteArrayList<DeadLetter> deadLetters() {
        final CopyOnWriteArrayList<DeadLetter> letters = new CopyOnWriteArrayList<>();
        testKit.system().deadLetters().subscribe(letters::add);
        return letters;
    }

    @Test
    void aPipeToSelfResultThatArrivesAfterTheActorStoppedIsADeadLetterOfTheMessageItWouldHaveBeen() {
        final CopyOnWriteArrayList<DeadLetter> letters = deadLetters();
        final CompletableFuture<Void> save = new CompletableFuture<>();
        final CompletableFuture<String> load = new CompletableFuture<>();
        final ActorRef<Command> actor = testKit.spawn(Behaviors.<Command>setup(ctx -> {
            // a Void future completes with null: without the conversion there is nothing to name
            ctx.pipeToSelf(save, (v, e) -> e == null ? new Saved("order-1") : new SaveFailed(e.getMessage()));
            ctx.pipeToSelf(load, (v, e) -> e == null ? new Saved(v) : new SaveFailed(e.getMessage()));
            return Behaviors.receive(Command.class).onMessage(Stop.class, s -> Behaviors.stopped()).build();
        }), "pipes");
        actor.tell(new Stop());
        testKit.createTestProbe().expectTerminated(actor);

        save.complete(null);
        load.completeExceptionally(new IllegalStateException("disk gone"));

        final TestProbe<Object> probe = testKit.createTestProbe();
        probe.awaitAssert(Duration.ofSeconds(3), () -> assertThat(letters).filteredOn(d -> d.recipient().equals(actor.path())).hasSize(2));
        assertThat(letters).filteredOn(d -> d.recipient().equals(actor.path()))
            .extracting(DeadLetter::message)
            .containsExactlyInAnyOrder(new Saved("order-1"), new SaveFailed("disk gone"));
        assertThat(letters).filteredOn(d -> d.recipient().equals(actor.path()))
            .allSatisfy(d -> assertThat(d.reason()).isEqualTo(DeadLetterReason.STOPPED))
            .allSatisfy(d -> assertThat(d.toString()).contains(MessageTypesTest.class.getName() + "$Save"));
    }

    @Test
    void aMessageOfAnotherClassThanTheBuildersIsADeadLetterOfReasonWrongType() {
        final CopyOnWriteArrayList<DeadLetter> letters = deadLetters();
        final TestProbe<Command> probe = testKit.createTestProbe();
        final long before = testKit.system().deadLetters().count(DeadLetterReason.WRONG_TYPE);
        final ActorRef<Command> actor = testKit.spawn(Behaviors.receive(Command.class)
            .onAnyMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            })
            .build(), "typed");
        // past the compiler: a String to an actor of Commands
        actor.<Object>unsafeUpcast().tell("not a command");
        actor.tell(new Saved("after"));
        // the handler never saw the String; the next message is handled as usual
        probe.expectMessage(new Saved("after"));
        assertThat(testKit.system().deadLetters().count(DeadLetterReason.WRONG_TYPE)).isEqualTo(before + 1);
        assertThat(letters).filteredOn(d -> d.reason() == DeadLetterReason.WRONG_TYPE)
            .singleElement()
            .satisfies(d -> {
                assertThat(d.message()).isEqualTo("not a command");
                assertThat(d.recipient()).isEqualTo(actor.path());
            });
        assertThat(DeadLetterReason.WRONG_TYPE.tag()).isEqualTo("wrong-type");
    }

    @Test
    void aProbeForAClassFailsOnAMessageOfAnother() {
        final TestProbe<Command> typed = testKit.createTestProbe(Command.class);
        assertThat(typed.messageType()).isEqualTo(Command.class);
        typed.ref().tell(new Saved("x"));
        assertThat(typed.expectMessageClass(Saved.class)).isEqualTo(new Saved("x"));
        typed.ref().<Object>unsafeUpcast().tell(42);
        assertThatThrownBy(typed::receiveMessage)
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining(Command.class.getName())
            .hasMessageContaining("java.lang.Integer");

        // an untyped probe takes anything
        final TestProbe<Command> untyped = testKit.createTestProbe();
        assertThat(untyped.messageType()).isNull();
        untyped.ref().<Object>unsafeUpcast().tell(42);
        assertThat((Object) untyped.receiveMessage()).isEqualTo(42);
    }
}
