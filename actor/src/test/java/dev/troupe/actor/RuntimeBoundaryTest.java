package dev.troupe.actor;

import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.Cancellable;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.SystemMessageHandler;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;
import dev.troupe.actor.testkit.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What users get (the public API) and what sibling modules get (the SPI), and nothing in between. */
class RuntimeBoundaryTest {

    private static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void cleanup() {
        testKit.shutdownTestKit();
    }

    @Test
    void actorSystemsPublicMethodsAreTheUserApi() {
        final Set<String> publicMethods = Arrays.stream(ActorSystem.class.getDeclaredMethods())
            .filter(m -> Modifier.isPublic(m.getModifiers()))
            .map(Method::getName)
            .collect(Collectors.toCollection(TreeSet::new));
        assertThat(publicMethods).containsExactlyInAnyOrder("create", "spawn", "spawnAnonymous", "systemActorOf", "stop", "resolveLocal",
            "terminate", "shutdown", "whenTerminated", "isTerminating", "isShuttingDown", "isTerminated", "registerOnTermination",
            "extension", "name", "uid", "settings", "deadLetters", "metrics", "uptimeNanos", "toString");
    }

    @Test
    void aRefIsNotAContext() throws Exception {
        final CompletableFuture<ActorContext<String>> context = new CompletableFuture<>();
        final ActorRef<String> ref = testKit.spawn(Behaviors.setup(ctx -> {
            context.complete(ctx);
            return Behaviors.ignore();
        }));
        final ActorContext<String> ctx = context.get(3, TimeUnit.SECONDS);
        assertThat(ref).isNotInstanceOf(ActorContext.class).isNotInstanceOf(SystemMessageHandler.class);
        assertThat(ctx.self()).isSameAs(ref).isNotInstanceOf(ActorContext.class);
        assertThat(ctx).isNotInstanceOf(ActorRef.class);
    }

    @Test
    void theSpiResolvesLocalActorsAndTemporaryRefs() {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        assertThat(ActorSystemSpi.of(testKit.system())).isSameAs(spi);
        assertThat(spi.system()).isSameAs(testKit.system());
        final ActorRef<String> ref = testKit.spawn(Behaviors.ignore(), "resolved");
        assertThat(spi.<String>resolveLocal(ref.path())).isSameAs(ref);
        assertThat(spi.<String>resolveLocal(ref.path().withUid(ref.path().uid() + 1))).isNull();
        assertThat(spi.<String>resolveLocal(ref.path().withAddress("somewhere", 1))).isSameAs(ref);

        final ActorPath tempPath = spi.newTempPath();
        assertThat(tempPath.parent().toString()).isEqualTo("troupe://" + testKit.system().name() + "/temp");
        assertThat(spi.newTempPath()).isNotEqualTo(tempPath);
        final LinkedBlockingQueue<Object> got = new LinkedBlockingQueue<>();
        final InternalActorRef<Object> temp = new InternalActorRef<>() {
            @Override
            public void tell(Object message) {
                got.add(message);
            }

            @Override
            public ActorPath path() {
                return tempPath;
            }

            @Override
            public void sendSystem(dev.troupe.actor.spi.SystemMessage message) {
            }

            @Override
            public boolean isLocal() {
                return true;
            }
        };
        spi.registerTempRef(temp);
        assertThat(spi.resolveLocal(tempPath)).isSameAs(temp);
        assertThat(testKit.system().resolveLocal(tempPath)).containsSame(temp);
        spi.unregisterTempRef(temp);
        assertThat(spi.<Object>resolveLocal(tempPath)).isNull();
        assertThatThrownBy(() -> spi.registerTempRef(InternalActorRef.of(ref))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void scheduleOnceRunsOnTheTimerThreadUnlessCancelled() throws Exception {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        assertThat(spi.isActorThread()).isFalse();
        final CountDownLatch ran = new CountDownLatch(1);
        final AtomicBoolean onActorThread = new AtomicBoolean();
        final Cancellable task = spi.scheduleOnce(Duration.ofMillis(5), () -> {
            onActorThread.set(spi.isActorThread());
            ran.countDown();
        });
        assertThat(ran.await(3, TimeUnit.SECONDS)).isTrue();
        assertThat(onActorThread).isTrue();
        assertThat(task.cancel()).as("too late to cancel").isFalse();
        assertThat(task.isCancelled()).isFalse();

        final AtomicBoolean cancelledRan = new AtomicBoolean();
        final Cancellable cancelled = spi.scheduleOnce(Duration.ofMillis(50), () -> cancelledRan.set(true));
        assertThat(cancelled.cancel()).isTrue();
        assertThat(cancelled.isCancelled()).isTrue();
        // a later task on the same timer thread has run, so the cancelled one's deadline has passed
        final CountDownLatch later = new CountDownLatch(1);
        spi.scheduleOnce(Duration.ofMillis(100), later::countDown);
        assertThat(later.await(3, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRan).isFalse();
    }

    @Test
    void theSpiPublishesDeadLettersAndActorsAnswerWatchesThroughTheSealedMessages() throws InterruptedException {
        final ActorSystemSpi spi = ActorSystemSpi.of(testKit.system());
        final long before = testKit.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT);
        spi.publishDeadLetter("lost", ActorPath.root(testKit.system().name()).child("nobody"), DeadLetterReason.UNKNOWN_RECIPIENT);
        assertThat(testKit.system().deadLetters().count(DeadLetterReason.UNKNOWN_RECIPIENT)).isEqualTo(before + 1);

        final ActorRef<String> actor = testKit.spawn(Behaviors.receiveMessage(m -> Behaviors.stopped()));
        final LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
        final InternalActorRef<Object> watcher = new InternalActorRef<>() {
            private final ActorPath path = spi.newTempPath();

            @Override
            public void tell(Object message) {
            }

            @Override
            public ActorPath path() {
                return path;
            }

            @Override
            public void sendSystem(dev.troupe.actor.spi.SystemMessage message) {
                message.dispatch(new SystemMessageHandler() {
                    @Override
                    public void onWatch(Watch watch) {
                        heard.add("watch");
                    }

                    @Override
                    public void onUnwatch(Unwatch unwatch) {
                        heard.add("unwatch");
                    }

                    @Override
                    public void onDeathWatchNotification(DeathWatchNotification notification) {
                        heard.add("terminated " + notification.actor().path().name());
                    }
                });
            }

            @Override
            public boolean isLocal() {
                return true;
            }
        };
        final InternalActorRef<String> target = InternalActorRef.of(actor);
        target.sendSystem(new Watch(target, watcher));
        actor.tell("stop");
        assertThat(heard.poll(3, TimeUnit.SECONDS)).isEqualTo("terminated " + actor.path().name());
        // a watch that arrives after the actor stopped is answered at once
        target.sendSystem(new Watch(target, watcher));
        assertThat(heard.poll(3, TimeUnit.SECONDS)).isEqualTo("terminated " + actor.path().name());
        assertThat(heard).isEmpty();
    }
    /**
     * A metrics view is not a ref: what a scrape gets from {@code trackedActors()} or
     * {@code forEachActor} cannot be cast into something that sends to, or runs, the actor. A
     * tracked actor keeps one view (meter registries key on it); a walk reuses one view per walk.
     */
    @Test
    void aMetricsViewIsNotARef() {
        final ActorRef<String> tracked = testKit.spawn(Behaviors.ignore(), "viewed", Props.empty().withMetrics());
        final ActorRef<String> plain = testKit.spawn(Behaviors.ignore(), "walked");
        final dev.troupe.actor.metrics.SystemMetrics metrics = testKit.system().metrics();
        final dev.troupe.actor.metrics.ActorMetrics view = metrics.trackedActors().stream()
            .filter(a -> a.path().equals(tracked.path())).findFirst().orElseThrow();
        assertThat(view).isNotInstanceOf(ActorRef.class).isNotInstanceOf(SystemMessageHandler.class)
            .isNotInstanceOf(ActorContext.class);
        assertThat(metrics.trackedActors()).contains(view);
        final Set<String> walked = new TreeSet<>();
        final Set<Object> views = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        metrics.forEachActor(a -> {
            assertThat(a).isNotInstanceOf(ActorRef.class).isNotInstanceOf(SystemMessageHandler.class);
            walked.add(a.path().name());
            views.add(a);
            if (a.path().equals(tracked.path())) {
                assertThat(a).isSameAs(view);
            }
        });
        assertThat(walked).contains("viewed", "walked");
        // Every untracked actor was seen through one reused view, plus the tracked actors' own views.
        assertThat(views.size()).isLessThanOrEqualTo(1 + metrics.trackedActors().size());
        assertThat(plain.path().name()).isEqualTo("walked");
    }
}
