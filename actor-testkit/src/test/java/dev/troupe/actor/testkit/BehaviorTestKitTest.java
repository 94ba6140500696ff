package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeathPactException;
import dev.troupe.actor.InvalidActorNameException;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Props;
import dev.troupe.actor.Signal;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.actor.Terminated;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A behavior run on the test's thread, its effects recorded. */
class BehaviorTestKitTest {

    sealed interface Command {
    }

    record StartWorker(String name, ActorRef<String> replyTo) implements Command {
    }

    record ToWorker(String name, String work) implements Command {
    }

    record StopWorker(String name) implements Command {
    }

    record Become(String mode) implements Command {
    }

    record Ping(ActorRef<String> replyTo) implements Command {
    }

    record Shutdown() implements Command {
    }

    /** A manager of workers, in the functional style. */
    static Behavior<Command> manager(List<Signal> signals) {
        return Behaviors.setup(ctx -> Behaviors.receive(Command.class)
            .onMessage(StartWorker.class, m -> {
                ctx.spawn(worker(), m.name());
                m.replyTo().tell("started " + m.name());
                return Behaviors.same();
            })
            .onMessage(ToWorker.class, m -> {
                ctx.child(m.name()).orElseThrow().<String>unsafeUpcast().tell(m.work());
                return Behaviors.same();
            })
            .onMessage(StopWorker.class, m -> {
                ctx.stop(ctx.child(m.name()).orElseThrow());
                return Behaviors.same();
            })
            .onMessage(Shutdown.class, m -> Behaviors.stopped())
            .onSignal(PostStop.class, s -> {
                signals.add(s);
                return Behaviors.same();
            })
            .build());
    }

    static Behavior<String> worker() {
        return Behaviors.receiveMessage(w -> Behaviors.same());
    }

    @Test
    void spawnedChildrenAreEffectsAndTheirMessagesLandInTheirInboxes() {
        final BehaviorTestKit<Command> kit = BehaviorTestKit.create(manager(new ArrayList<>()));
        final TestInbox<String> replies = TestInbox.create("replies");
        // the setup ran when the kit was made, with no effect
        assertThat(kit.hasEffects()).isFalse();

        kit.run(new StartWorker("w1", replies.ref()));
        final Effect.Spawned<?> spawned = kit.expectEffectClass(Effect.Spawned.class);
        assertThat(spawned.childName()).isEqualTo("w1");
        assertThat(spawned.props()).isEqualTo(Props.empty());
        replies.expectMessage("started w1");
        assertThat(kit.returnedBehavior()).isEqualTo(Behaviors.same());

        kit.run(new ToWorker("w1", "job-1"));
        kit.childInbox("w1").expectMessage("job-1");
        assertThat(kit.childTestKit(spawned.ref()).selfInbox().hasMessages()).isFalse();

        kit.run(new StopWorker("w1"));
        kit.expectEffect(Effects.stopped("w1"));
        assertThat(kit.retrieveEffect()).isEqualTo(Effects.noEffects());
        assertThatThrownBy(() -> kit.childInbox("w1")).isInstanceOf(AssertionError.class).hasMessageContaining("no child named w1");
    }

    @Test
    void expectEffectComparesWhatATestCanStateAndSaysWhatItFound() {
        final Behavior<String> child = worker();
        final BehaviorTestKit<String> kit = BehaviorTestKit.create(Behaviors.receive((ctx, m) -> {
            ctx.spawn(child, m, Props.empty().withDispatcher("io"));
            ctx.spawnAnonymous(child);
            return Behaviors.same();
        }));
        kit.run("named");
        kit.expectEffect(Effects.spawned(child, "named", Props.empty().withDispatcher("io")));
        kit.expectEffect(Effects.spawnedAnonymous(child));
        kit.run("again");
        assertThatThrownBy(() -> kit.expectEffect(Effects.spawned(child, "other", Props.empty().withDispatcher("io"))))
            .isInstanceOf(AssertionError.class).hasMessageContaining("expected effect Spawned(").hasMessageContaining("again");
        assertThat(kit.retrieveAllEffects()).singleElement().isInstanceOf(Effect.SpawnedAnonymous.class);
        // names follow the runtime's rules
        assertThatThrownBy(() -> kit.run("again")).isInstanceOf(InvalidActorNameException.class).hasMessageContaining("not unique");
    }

    @Test
    void stoppingIsSeenWithPostStopAndTheKitRefusesFurtherMessages() {
        final List<Signal> signals = new ArrayList<>();
        final BehaviorTestKit<Command> kit = BehaviorTestKit.create(manager(signals));
        assertThat(kit.isAlive()).isTrue();
        kit.run(new Shutdown());
        assertThat(kit.isAlive()).isFalse();
        assertThat(kit.returnedBehavior()).isEqualTo(Behaviors.stopped());
        assertThat(signals).containsExactly(PostStop.instance());
        assertThatThrownBy(() -> kit.run(new Shutdown())).isInstanceOf(IllegalStateException.class).hasMessageContaining("stopped");
    }

    @Test
    void unhandledIsTheReturnedBehaviorAndAnUnhandledTerminatedIsADeathPact() {
        final BehaviorTestKit<String> kit = BehaviorTestKit.create(Behaviors.receive((ctx, m) -> Behaviors.unhandled()));
        final long before = BehaviorTestKit.system().deadLetters().total();
        kit.run("nobody wants me");
        assertThat(kit.returnedBehavior()).isEqualTo(Behaviors.unhandled());
        assertThat(kit.isAlive()).isTrue();
        assertThat(BehaviorTestKit.system().deadLetters().total()).isEqualTo(before + 1);
        final TestInbox<String> other = TestInbox.create();
        assertThatThrownBy(() -> kit.signal(new Terminated(other.ref().unsafeUpcast()))).isInstanceOf(DeathPactException.class);
    }

    @Test
    void behaviorSwitchesAndTheSelfInboxFollowTheRuntimesInterpretation() {
        final Behavior<Command> calm = Behaviors.receive(Command.class)
            .onMessage(Ping.class, p -> {
                p.replyTo().tell("calm");
                return Behaviors.same();
            })
            .build();
        final Behavior<Command> busy = Behaviors.setup(ctx -> Behaviors.receive(Command.class)
            .onMessage(Ping.class, p -> {
                p.replyTo().tell("busy");
                // a message to itself, processed when the test runs it
                ctx.self().tell(new Become("calm"));
                return Behaviors.same();
            })
            .onMessage(Become.class, b -> calm)
            .build());
        final BehaviorTestKit<Command> kit = BehaviorTestKit.create(busy);
        final TestInbox<String> replies = TestInbox.create();
        kit.run(new Ping(replies.ref()));
        replies.expectMessage("busy");
        assertThat(kit.selfInbox().hasMessages()).isTrue();
        kit.runOne();
        assertThat(kit.returnedBehavior()).isSameAs(calm);
        assertThat(kit.currentBehavior()).isSameAs(calm);
        kit.run(new Ping(replies.ref()));
        replies.expectMessage("calm");
        assertThatThrownBy(kit::runOne).isInstanceOf(AssertionError.class).hasMessageContaining("no message in the self inbox");
    }

    @Test
    void timersAndReceiveTimeoutsAreRecordedAndATimerCanBeFiredByHand() {
        final BehaviorTestKit<String> kit = BehaviorTestKit.create(Behaviors.withTimers(timers -> Behaviors.receive((ctx, m) -> {
            switch (m) {
                case "start" -> {
                    timers.startSingleTimer("tick", "tock", Duration.ofSeconds(5));
                    ctx.setReceiveTimeout(Duration.ofSeconds(30), "idle");
                }
                case "again" -> timers.startTimerAtFixedRate("tick", "tock", Duration.ofSeconds(1));
                case "stop" -> {
                    timers.cancelAll();
                    ctx.cancelReceiveTimeout();
                }
                case "tock" -> ctx.self().tell("was ticked");
                default -> {
                }
            }
            return Behaviors.same();
        })));
        kit.run("start");
        final Effect.TimerScheduled<?> scheduled = kit.expectEffectClass(Effect.TimerScheduled.class);
        assertThat(scheduled).isEqualTo(Effects.timerScheduled("tick", "tock", Duration.ofSeconds(5), Effect.TimerMode.SINGLE, false));
        kit.expectEffect(Effects.receiveTimeoutSet(Duration.ofSeconds(30), "idle"));
        kit.run("again");
        kit.expectEffect(Effects.timerScheduled("tick", "tock", Duration.ofSeconds(1), Effect.TimerMode.FIXED_RATE, true));

        scheduled.send();
        kit.runOne();
        kit.selfInbox().expectMessage("was ticked");

        kit.run("stop");
        kit.expectEffect(Effects.timerCancelled("tick"));
        kit.expectEffect(Effects.receiveTimeoutCancelled());
    }

    record Stock(int free) {
    }

    record GetStock(ActorRef<Stock> replyTo) {
    }

    record StockKnown(Integer free, String failure) {
    }

    @Test
    void anAskIsAnEffectTheTestAnswers() {
        final TestInbox<GetStock> inventory = TestInbox.create("inventory");
        final BehaviorTestKit<Object> kit = BehaviorTestKit.create(Behaviors.receive((ctx, m) -> {
            if (m.equals("ask")) {
                ctx.ask(Stock.class, inventory.ref(), Duration.ofSeconds(3), GetStock::new,
                    (stock, failure) -> new StockKnown(stock == null ? null : stock.free(), failure == null ? null : failure.getClass().getSimpleName()));
            }
            return Behaviors.same();
        }));
        kit.run("ask");
        @SuppressWarnings("unchecked")
        final Effect.AskInitiated<GetStock, Stock, Object> ask = kit.expectEffectClass(Effect.AskInitiated.class);
        assertThat(ask.target()).isEqualTo(inventory.ref());
        assertThat(ask.responseTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(ask.responseClass()).isEqualTo(Stock.class);
        // the request went to the target, carrying the reply-to ref
        assertThat(inventory.receiveMessage().replyTo()).isEqualTo(ask.replyTo());
        assertThat(ask.adaptResponse(new Stock(1))).isEqualTo(new StockKnown(1, null));
        assertThat(ask.adaptTimeout()).isEqualTo(new StockKnown(null, AskTimeoutException.class.getSimpleName()));

        ask.respondWith(new Stock(7));
        kit.selfInbox().expectMessage(new StockKnown(7, null));
        assertThatThrownBy(ask::timeout).isInstanceOf(IllegalStateException.class).hasMessageContaining("answered already");

        kit.run("ask");
        @SuppressWarnings("unchecked")
        final Effect.AskInitiated<GetStock, Stock, Object> second = kit.expectEffectClass(Effect.AskInitiated.class);
        second.timeout();
        kit.selfInbox().expectMessage(new StockKnown(null, "AskTimeoutException"));
    }

    @Test
    void adaptersPipesAndStashesWorkThroughTheSelfInbox() {
        final CompletableFuture<Integer> future = new CompletableFuture<>();
        final TestInbox<String> out = TestInbox.create();
        final Behavior<String> stashing = Behaviors.withStash(10, stash -> Behaviors.setup(ctx -> {
            final ActorRef<Integer> numbers = ctx.messageAdapter(Integer.class, n -> "number " + n);
            ctx.pipeToSelf(future, (v, e) -> "piped " + v);
            out.ref().tell(numbers.path().name());
            // stash until "open", then process in order
            return Behaviors.receive((c, m) -> {
                if (m.equals("open")) {
                    return stash.unstashAll(Behaviors.receiveMessage(x -> {
                        out.ref().tell(x);
                        return Behaviors.same();
                    }));
                }
                if (m.equals("tell-adapter")) {
                    numbers.tell(42);
                    return Behaviors.same();
                }
                stash.stash(m);
                return Behaviors.same();
            });
        }));
        final BehaviorTestKit<String> kit = BehaviorTestKit.create(stashing);
        assertThat(kit.expectEffectClass(Effect.MessageAdapter.class).messageClass()).isEqualTo(Integer.class);
        out.receiveMessage();
        kit.run("tell-adapter");
        future.complete(5);
        kit.runOne();
        kit.runOne();
        kit.run("open");
        assertThat(out.allReceived()).containsExactly("number 42", "piped 5");
    }

    @Test
    void aFailureIsThrownToTheTestWhateverTheSupervision() {
        final BehaviorTestKit<String> kit = BehaviorTestKit.create(Behaviors.supervise(Behaviors.<String>receiveMessage(m -> {
            throw new IllegalStateException("boom: " + m);
        })).onFailure(SupervisorStrategy.resume()));
        assertThatThrownBy(() -> kit.run("x")).isInstanceOf(IllegalStateException.class).hasMessage("boom: x");
    }

    @Test
    void watchesAreEffectsAndTheLoggerIsNamedAsInAnActor() {
        final TestInbox<String> other = TestInbox.create();
        final List<String> loggerNames = new ArrayList<>();
        final BehaviorTestKit<String> kit = BehaviorTestKit.create(Behaviors.receive((ctx, m) -> {
            ctx.watch(other.ref());
            ctx.watchWith(other.ref(), "gone");
            ctx.unwatch(other.ref());
            loggerNames.add(ctx.log().getName());
            return Behaviors.same();
        }));
        kit.run("go");
        kit.expectEffect(Effects.watched(other.ref()));
        kit.expectEffect(Effects.watchedWith(other.ref(), "gone"));
        kit.expectEffect(Effects.unwatched(other.ref()));
        assertThat(loggerNames).containsExactly(BehaviorTestKitTest.class.getName());
        assertThat(kit.ref().path().toString()).isEqualTo("troupe://behavior-testkit/testkit/testkit");
    }
}
