package dev.troupe.actor;

import dev.troupe.actor.testkit.ActorTestKit;
import dev.troupe.actor.testkit.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LifecycleAndWatchTest {

    static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    interface Cmd {
    }

    record Stop() implements Cmd {
    }

    record Fail(String why) implements Cmd {
    }

    record Watch(ActorRef<?> other) implements Cmd {
    }

    record WatchWith(ActorRef<?> other, String tag) implements Cmd {
    }

    record Tagged(String tag) implements Cmd {
    }

    static Behavior<Cmd> stoppable(TestProbe<String> events, String name) {
        return Behaviors.receive(
            (ctx, msg) -> {
                if (msg instanceof Stop) {
                    return Behaviors.stopped();
                }
                if (msg instanceof Fail) {
                    throw new IllegalStateException(((Fail) msg).why());
                }
                return Behaviors.same();
            },
            (ctx, signal) -> {
                if (signal instanceof PostStop) {
                    events.ref().tell(name + ":PostStop");
                }
                return Behaviors.same();
            });
    }

    static Behavior<Cmd> watcher(TestProbe<String> events) {
        return Behaviors.receive(
            (ctx, msg) -> {
                if (msg instanceof Watch) {
                    ctx.watch(((Watch) msg).other());
                } else if (msg instanceof WatchWith) {
                    ctx.watchWith(((WatchWith) msg).other(), new Tagged(((WatchWith) msg).tag()));
                } else if (msg instanceof Tagged) {
                    events.ref().tell("tagged:" + ((Tagged) msg).tag());
                }
                return Behaviors.same();
            },
            (ctx, signal) -> {
                if (signal instanceof ChildFailed) {
                    events.ref().tell("childFailed:" + ((ChildFailed) signal).ref().path().name() + ":" + ((ChildFailed) signal).cause().getMessage());
                } else if (signal instanceof Terminated) {
                    events.ref().tell("terminated:" + ((Terminated) signal).ref().path().name());
                }
                return Behaviors.same();
            });
    }

    @Test
    void watcherGetsTerminatedWhenTheWatchedActorStops() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> target = testKit.spawn(stoppable(events, "w1"), "w1");
        final ActorRef<Cmd> watcher = testKit.spawn(watcher(events), "watcher1");
        watcher.tell(new Watch(target));
        // Watch is processed asynchronously: give it a moment by round-tripping through the watcher.
        final ActorRef<Cmd> probeTarget = target;
        watcher.tell(new Tagged("ready"));
        events.expectMessage("tagged:ready");
        probeTarget.tell(new Stop());
        events.expectMessage("w1:PostStop");
        events.expectMessage("terminated:w1");
    }

    @Test
    void watchingAnAlreadyStoppedActorDeliversTerminatedAtOnce() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> target = testKit.spawn(stoppable(events, "gone"), "gone");
        target.tell(new Stop());
        events.expectMessage("gone:PostStop");
        events.expectTerminated(target);
        final ActorRef<Cmd> watcher = testKit.spawn(watcher(events), "late-watcher");
        watcher.tell(new Watch(target));
        events.expectMessage("terminated:gone");
    }

    @Test
    void watchWithDeliversTheCustomMessage() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> target = testKit.spawn(stoppable(events, "ww"), "ww");
        final ActorRef<Cmd> watcher = testKit.spawn(watcher(events), "watcher-with");
        watcher.tell(new WatchWith(target, "bye"));
        watcher.tell(new Tagged("ready"));
        events.expectMessage("tagged:ready");
        target.tell(new Stop());
        events.expectMessage("ww:PostStop");
        events.expectMessage("tagged:bye");
    }

    @Test
    void parentWatchingAFailedChildGetsChildFailed() {
        final TestProbe<String> events = testKit.createTestProbe();
        final TestProbe<ActorRef<Cmd>> childRef = testKit.createTestProbe();
        testKit.spawn(Behaviors.<Cmd>setup(ctx -> {
            final ActorRef<Cmd> child = ctx.spawn(stoppable(events, "child"), "child");
            ctx.watch(child);
            childRef.ref().tell(child);
            return watcher(events);
        }), "parent-cf");
        final ActorRef<Cmd> child = childRef.receiveMessage();
        child.tell(new Fail("boom"));
        events.expectMessage("child:PostStop");
        events.expectMessage("childFailed:child:boom");
    }

    @Test
    void unhandledTerminatedFailsTheWatcherWithDeathPact() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> target = testKit.spawn(stoppable(events, "dp-target"), "dp-target");
        final ActorRef<Cmd> watcher = testKit.spawn(Behaviors.<Cmd>receive((ctx, msg) -> {
            if (msg instanceof Watch) {
                ctx.watch(((Watch) msg).other());
                events.ref().tell("watching");
            }
            return Behaviors.same();
        }), "dp-watcher");
        watcher.tell(new Watch(target));
        events.expectMessage("watching");
        target.tell(new Stop());
        events.expectMessage("dp-target:PostStop");
        events.expectTerminated(watcher);
    }

    @Test
    void childrenStopBeforeTheirParentAndPostStopRunsForEach() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> parent = testKit.spawn(Behaviors.<Cmd>setup(ctx -> {
            ctx.spawn(stoppable(events, "c1"), "c1");
            ctx.spawn(stoppable(events, "c2"), "c2");
            return stoppable(events, "parent");
        }), "parent-order");
        parent.tell(new Stop());
        final List<String> got = events.receiveMessages(3);
        assertThat(got).containsExactlyInAnyOrder("c1:PostStop", "c2:PostStop", "parent:PostStop");
        assertThat(got.get(2)).isEqualTo("parent:PostStop");
        events.expectTerminated(parent);
    }

    @Test
    void stopOfANonChildIsRejected() {
        final TestProbe<String> events = testKit.createTestProbe();
        final ActorRef<Cmd> other = testKit.spawn(stoppable(events, "not-mine"), "not-mine");
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        testKit.spawn(Behaviors.<Cmd>setup(ctx -> {
            try {
                ctx.stop(other);
                failure.complete(null);
            } catch (IllegalArgumentException e) {
                failure.complete(e);
            }
            return Behaviors.ignore();
        }), "stopper");
        assertThat(failure.join()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only children");
    }

    @Test
    void terminateStopsEveryActorWithPostStopAndLaterTellsAreDeadLetters() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("terminate-all");
        final TestProbe<String> events = TestProbe.create(testKit.system());
        final ActorRef<Cmd> a = kit.spawn(Behaviors.<Cmd>setup(ctx -> {
            ctx.spawn(stoppable(events, "a-child"), "a-child");
            return stoppable(events, "a");
        }), "a");
        kit.spawn(stoppable(events, "b"), "b");
        final CompletableFuture<Void> done = kit.system().terminate().toCompletableFuture();
        done.get(10, TimeUnit.SECONDS);
        assertThat(events.receiveMessages(3)).containsExactlyInAnyOrder("a-child:PostStop", "a:PostStop", "b:PostStop");
        assertThat(kit.system().isTerminated()).isTrue();
        assertThat(kit.system().metrics().liveActors()).isZero();
        a.tell(new Stop());
        assertThat(kit.system().deadLetters().count(DeadLetterReason.TERMINATED)).isEqualTo(1);
        assertThatThrownBy(() -> kit.system().spawn(Behaviors.ignore(), "late")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void terminateUnderLoadLosesNothingSilently() throws Exception {
        final ActorTestKit kit = ActorTestKit.create("terminate-load");
        final java.util.concurrent.atomic.AtomicLong processed = new java.util.concurrent.atomic.AtomicLong();
        final CountDownLatch underway = new CountDownLatch(1000);
        final int actors = 8;
        @SuppressWarnings("unchecked")
        final ActorRef<Integer>[] refs = new ActorRef[actors];
        for (int i = 0; i < actors; i++) {
            refs[i] = kit.spawn(Behaviors.receiveMessage(m -> {
                processed.incrementAndGet();
                underway.countDown();
                return Behaviors.same();
            }), "load-" + i);
        }
        final int producers = 4;
        final int perProducer = 50_000;
        final Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            threads[p] = new Thread(() -> {
                for (int i = 0; i < perProducer; i++) {
                    refs[i % actors].tell(i);
                }
            });
            threads[p].start();
        }
        // Terminate while the load is underway: the first thousand messages have been processed.
        assertThat(underway.await(10, TimeUnit.SECONDS)).isTrue();
        final CompletableFuture<Void> done = kit.system().terminate().toCompletableFuture();
        for (Thread t : threads) {
            t.join(30_000);
        }
        done.get(20, TimeUnit.SECONDS);
        final DeadLetters dl = kit.system().deadLetters();
        final long dead = dl.count(DeadLetterReason.TERMINATED) + dl.count(DeadLetterReason.STOPPED);
        assertThat(processed.get() + dead).isEqualTo((long) producers * perProducer);
    }

    @Test
    void childrenAndChildSeeTheLiveChildren() {
        final TestProbe<List<String>> names = testKit.createTestProbe();
        testKit.spawn(Behaviors.<String>setup(ctx -> {
            ctx.spawn(Behaviors.ignore(), "x");
            ctx.spawn(Behaviors.ignore(), "y");
            names.ref().tell(ctx.children().stream().map(r -> r.path().name()).sorted().toList());
            names.ref().tell(List.of(String.valueOf(ctx.child("x").isPresent()), String.valueOf(ctx.child("z").isPresent())));
            return Behaviors.ignore();
        }), "with-children");
        assertThat(names.receiveMessage()).containsExactly("x", "y");
        assertThat(names.receiveMessage()).containsExactly("true", "false");
        assertThat(testKit.system().resolveLocal(ActorPath.parse("troupe://" + testKit.system().name() + "/user/with-children/x"))).isPresent();
        assertThat(testKit.system().resolveLocal(ActorPath.parse("troupe://" + testKit.system().name() + "/user/with-children/nope"))).isEmpty();
    }

    @Test
    void setupThatThrowsStopsTheActor() {
        final ActorRef<Object> broken = testKit.spawn(Behaviors.setup(ctx -> {
            throw new IllegalStateException("no config");
        }), "broken-setup");
        final TestProbe<Object> probe = testKit.createTestProbe();
        probe.expectTerminated(broken, Duration.ofSeconds(3));
    }
}
