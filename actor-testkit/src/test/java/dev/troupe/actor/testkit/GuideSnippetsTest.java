package dev.troupe.actor.testkit;

import dev.troupe.actor.AbstractBehavior;
import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.ChildFailed;
import dev.troupe.actor.PostStop;
import dev.troupe.actor.Receive;
import dev.troupe.actor.SupervisorStrategy;
import dev.troupe.actor.routing.Routers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main examples of the user guide (docs/guide/), compiled and run against the current API: when a
 * signature the guide shows changes, this class stops compiling. Each nested class is the code of one
 * guide snippet, as close to the page as a test allows.
 */
class GuideSnippetsTest {

    static final ActorTestKit testKit = ActorTestKit.create("guide");

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    // ---- actors.md: "Define an actor" ---------------------------------------------------------

    static final class Counter {
        sealed interface Command {}
        record Increment(int by) implements Command {}
        record Get(ActorRef<Integer> replyTo) implements Command {}

        static Behavior<Command> create() {
            return Behaviors.setup(ctx -> counting(0));
        }

        private static Behavior<Command> counting(int total) {
            return Behaviors.receive(Command.class)
                .onMessage(Increment.class, m -> counting(total + m.by()))
                .onMessage(Get.class, m -> {
                    m.replyTo().tell(total);
                    return Behaviors.same();
                })
                .build();
        }
    }

    static final class Greeter extends AbstractBehavior<Greeter.Greet> {
        record Greet(String name, ActorRef<String> replyTo) {}

        static Behavior<Greet> create() {
            return Behaviors.setup(Greeter::new);
        }

        private Greeter(ActorContext<Greet> ctx) {
            super(ctx);
        }

        @Override
        public Receive<Greet> createReceive() {
            return newReceiveBuilder()
                .onMessage(Greet.class, g -> {
                    g.replyTo().tell("hello " + g.name());
                    return this;
                })
                .onSignal(PostStop.class, s -> {
                    context().log().info("stopped");
                    return this;
                })
                .build();
        }
    }

    @Test
    void counterAndGreeterAnswerAsTheGuideSays() throws Exception {
        // testing.md: "Test actors on real threads"
        final ActorRef<Counter.Command> counter = testKit.spawn(Counter.create(), "counter");
        final TestProbe<Integer> probe = testKit.createTestProbe(Integer.class);
        counter.tell(new Counter.Increment(2));
        counter.tell(new Counter.Get(probe.ref()));
        probe.expectMessage(2);

        // ask.md and spring-boot.md: an ask from outside, the reply class named, and the method-ref form
        final CompletionStage<Integer> total = AskPattern.ask(counter, Integer.class, Counter.Get::new, Duration.ofSeconds(3));
        assertThat(total.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(2);
        final CompletionStage<Integer> untyped = AskPattern.ask(counter, Counter.Get::new, Duration.ofSeconds(3));
        assertThat(untyped.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(2);

        final ActorRef<Greeter.Greet> greeter = testKit.spawn(Greeter.create(), "greeter");
        final TestProbe<String> replies = testKit.createTestProbe(String.class);
        greeter.tell(new Greeter.Greet("guide", replies.ref()));
        replies.expectMessage("hello guide");
    }

    // ---- ask.md: "Ask from inside an actor" and "Wait for any future" ---------------------------

    record Stock(String sku, int available) {}
    record GetStock(String sku, ActorRef<Stock> replyTo) {}

    sealed interface Shop {}
    record Check(String sku, ActorRef<String> replyTo) implements Shop {}
    record StockKnown(Stock stock, ActorRef<String> replyTo) implements Shop {}
    record StockUnknown(String sku, Throwable failure, ActorRef<String> replyTo) implements Shop {}

    static Behavior<Shop> shop(ActorRef<GetStock> inventory) {
        return Behaviors.setup(ctx -> Behaviors.receive(Shop.class)
            .onMessage(Check.class, c -> {
                ctx.ask(Stock.class, inventory, Duration.ofSeconds(3),
                    replyTo -> new GetStock(c.sku(), replyTo),
                    (stock, failure) -> stock != null ? new StockKnown(stock, c.replyTo()) : new StockUnknown(c.sku(), failure, c.replyTo()));
                return Behaviors.same();
            })
            .onMessage(StockKnown.class, k -> {
                k.replyTo().tell(k.stock().sku() + "=" + k.stock().available());
                return Behaviors.same();
            })
            .onMessage(StockUnknown.class, u -> {
                u.replyTo().tell(u.sku() + "?" + (u.failure() instanceof AskTimeoutException));
                return Behaviors.same();
            })
            .build());
    }

    @Test
    void askFromInsideAnActorTurnsTheReplyIntoAMessage() {
        final ActorRef<GetStock> inventory = testKit.spawn(Behaviors.receiveMessage(g -> {
            g.replyTo().tell(new Stock(g.sku(), 7));
            return Behaviors.same();
        }), "inventory");
        final ActorRef<Shop> shop = testKit.spawn(shop(inventory), "shop");
        final TestProbe<String> probe = testKit.createTestProbe(String.class);
        shop.tell(new Check("A-1", probe.ref()));
        probe.expectMessage("A-1=7");
    }

    sealed interface Fetch {}
    record Fetched(String body) implements Fetch {}
    record FetchFailed(Throwable failure) implements Fetch {}

    @Test
    void pipeToSelfDeliversTheFuturesResult() {
        final TestProbe<Fetch> probe = testKit.createTestProbe(Fetch.class);
        final CompletableFuture<String> response = new CompletableFuture<>();
        testKit.spawn(Behaviors.<Fetch>setup(ctx -> {
            ctx.pipeToSelf(response, (body, failure) -> failure == null ? new Fetched(body) : new FetchFailed(failure));
            return Behaviors.receiveMessage(m -> {
                probe.ref().tell(m);
                return Behaviors.same();
            });
        }), "fetcher");
        response.complete("ok");
        probe.expectMessage(new Fetched("ok"));
    }

    // ---- supervision.md ------------------------------------------------------------------------

    sealed interface Job {}
    record Work(String what, ActorRef<String> replyTo) implements Job {}
    record Fail(RuntimeException failure) implements Job {}

    static Behavior<Job> worker() {
        return Behaviors.setup(ctx -> Behaviors.receive(Job.class)
            .onMessage(Work.class, w -> {
                w.replyTo().tell("done " + w.what());
                return Behaviors.same();
            })
            .onMessage(Fail.class, f -> {
                throw f.failure();
            })
            .build());
    }

    @Test
    void supervisedWorkerResumesOrRestartsAndAParentSeesChildFailed() {
        final Behavior<Job> supervised = Behaviors.supervise(worker())
            .onFailure(IllegalStateException.class, SupervisorStrategy.resume())
            .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofMillis(20), Duration.ofSeconds(1), 0.2));
        final ActorRef<Job> ref = testKit.spawn(supervised, "supervised-worker");
        final TestProbe<String> probe = testKit.createTestProbe(String.class);
        ref.tell(new Fail(new IllegalStateException("resumed")));
        ref.tell(new Fail(new IllegalArgumentException("restarted")));
        ref.tell(new Work("after", probe.ref()));
        probe.expectMessage(Duration.ofSeconds(5), "done after");

        // "React to a child's failure": an unsupervised child fails, the watching parent sees ChildFailed
        final TestProbe<String> parentProbe = testKit.createTestProbe(String.class);
        final ActorRef<Job> parent = testKit.spawn(Behaviors.<Job>setup(ctx -> {
            final ActorRef<Job> child = ctx.spawn(worker(), "worker");
            ctx.watch(child);
            return Behaviors.receive(Job.class)
                .onAnyMessage(m -> {
                    child.tell(m);
                    return Behaviors.same();
                })
                .onSignal(ChildFailed.class, failed -> {
                    parentProbe.ref().tell("child failed: " + failed.cause().getMessage());
                    return Behaviors.stopped();
                })
                .build();
        }), "parent");
        parent.tell(new Fail(new IllegalStateException("boom")));
        parentProbe.expectMessage("child failed: boom");
    }

    // ---- timers-and-stash.md ------------------------------------------------------------------------

    sealed interface Poll {}
    enum Tick implements Poll { INSTANCE }
    record Loaded(String value, Throwable failure) implements Poll {}
    record Read(ActorRef<String> replyTo) implements Poll {}

    @Test
    void timersFireAndTheStashIsUnstashedOnceLoaded() {
        final TestProbe<String> ticks = testKit.createTestProbe(String.class);
        final ActorRef<Poll> poller = testKit.spawn(Behaviors.<Poll>withTimers(timers -> {
            timers.startSingleTimer("poll", Tick.INSTANCE, Duration.ofMillis(10));
            return Behaviors.receiveMessage(m -> {
                ticks.ref().tell("tick");
                return Behaviors.same();
            });
        }), "poller");
        ticks.expectMessage("tick");
        testKit.stop(poller);

        final CompletableFuture<String> load = new CompletableFuture<>();
        final ActorRef<Poll> cache = testKit.spawn(Behaviors.<Poll>withStash(100, stash -> Behaviors.setup(ctx -> {
            ctx.pipeToSelf(load, (value, failure) -> new Loaded(value, failure));
            return Behaviors.receive(Poll.class)
                .onMessage(Loaded.class, loaded -> stash.unstashAll(ready(loaded.value())))
                .onAnyMessage(m -> {
                    stash.stash(m);
                    return Behaviors.same();
                })
                .build();
        })), "cache");
        final TestProbe<String> reads = testKit.createTestProbe(String.class);
        cache.tell(new Read(reads.ref()));
        reads.expectNoMessage();
        load.complete("v1");
        reads.expectMessage("v1");
    }

    private static Behavior<Poll> ready(String value) {
        return Behaviors.receive(Poll.class)
            .onMessage(Read.class, r -> {
                r.replyTo().tell(value);
                return Behaviors.same();
            })
            .build();
    }

    // ---- actors.md: "Pool routers"; testing.md: "Test a behavior synchronously" ------------------

    @Test
    void poolRouterSpreadsJobsAndBehaviorTestKitRecordsTheSpawn() {
        final ActorRef<Job> workers = testKit.spawn(Routers.pool(4, worker()).withRoundRobinRouting(), "workers");
        final TestProbe<String> probe = testKit.createTestProbe(String.class);
        for (int i = 0; i < 8; i++) {
            workers.tell(new Work("job", probe.ref()));
        }
        assertThat(probe.receiveMessages(8)).containsOnly("done job");

        final BehaviorTestKit<Job> kit = BehaviorTestKit.create(Behaviors.<Job>setup(ctx -> {
            final ActorRef<Job> child = ctx.spawn(worker(), "worker");
            return Behaviors.receiveMessage(m -> {
                child.tell(m);
                return Behaviors.same();
            });
        }));
        final Effect.Spawned<?> spawned = kit.expectEffectClass(Effect.Spawned.class);
        assertThat(spawned.childName()).isEqualTo("worker");
        final Work job = new Work("synchronous", TestInbox.<String>create().ref());
        kit.run(job);
        kit.<Job>childInbox("worker").expectMessage(job);
    }
}
