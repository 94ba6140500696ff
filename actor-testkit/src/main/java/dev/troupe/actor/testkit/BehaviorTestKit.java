package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.Signal;
import dev.troupe.actor.spi.ActorSystemSpi;
import dev.troupe.actor.spi.BehaviorDriver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Runs a behavior synchronously, on the test's own thread, and records what it does, as Pekko's
 * {@code BehaviorTestKit}: {@link #run(Object)} hands it a message, then the test inspects the
 * {@link Effect}s (children spawned and stopped, watches, timers, receive timeouts, adapters,
 * asks), the messages it sent (to {@link TestInbox}es, its {@link #selfInbox()}, its
 * {@link #childInbox children}), the behavior it returned and whether it stopped.
 *
 * <pre>{@code
 * BehaviorTestKit<Command> testKit = BehaviorTestKit.create(Manager.create());
 * TestInbox<Reply> replies = TestInbox.create();
 * testKit.run(new StartWorker("w1", replies.ref()));
 * testKit.expectEffectClass(Effect.Spawned.class);
 * testKit.childInbox("w1").expectMessage(new Work(...));
 * replies.expectMessage(new Started("w1"));
 * }</pre>
 *
 * <p>The behavior is interpreted by the runtime's own interpreter (through the SPI's
 * {@link BehaviorDriver}), so {@code same}, {@code unhandled}, {@code stopped}, setups, stashes,
 * timers, {@code logMessages} and behavior switches resolve exactly as in an actor. What differs:
 * nothing runs by itself. Children are behavior test kits of their own that run only when the
 * test runs them ({@link #childTestKit}); timers are recorded, not fired ({@link Effect.TimerScheduled#send()}
 * delivers a tick); asks are answered by the test ({@link Effect.AskInitiated}); a {@code pipeToSelf}
 * result lands in the self inbox when its future completes; watches record an effect, and the
 * test delivers {@link #signal signals}. A failure of the behavior is thrown from {@code run}:
 * supervision strategies are not applied. Unhandled messages are dead letters ({@code unhandled})
 * of the kits' shared system, and {@link #returnedBehavior()} is {@code Behaviors.unhandled()}.
 *
 * <p>Not thread-safe: one test thread drives a kit.
 *
 * @param <T> the message type
 */
public final class BehaviorTestKit<T> {

    private final StubbedContext<T> context;
    private final BehaviorDriver<T> driver;
    private final ConcurrentLinkedQueue<Effect> effects = new ConcurrentLinkedQueue<>();
    private Behavior<T> returned;
    private boolean alive;

    BehaviorTestKit(ActorPath path, Behavior<T> initial) {
        this.context = new StubbedContext<>(this, system(), path);
        this.driver = ActorSystemSpi.of(system()).newBehaviorDriver(context, initial);
        context.driver(driver);
        alive = true;
        if (driver.start()) {
            stopped();
        }
        returned = driver.currentBehavior();
    }

    /**
     * @param initial the behavior, not yet started: its setup runs here
     * @param <T> the message type
     * @return a kit running it under the name {@code testkit}
     */
    public static <T> BehaviorTestKit<T> create(Behavior<T> initial) {
        return create(initial, "testkit");
    }

    /**
     * @param initial the behavior, not yet started: its setup runs here
     * @param name the name of its path, {@code troupe://behavior-testkit/testkit/<name>}
     * @param <T> the message type
     * @return a kit running it
     */
    public static <T> BehaviorTestKit<T> create(Behavior<T> initial, String name) {
        Objects.requireNonNull(initial, "initial");
        return new BehaviorTestKit<>(ActorPath.root(system().name()).child("testkit").child(name), initial);
    }

    // =====================================================================================
    // Running
    // =====================================================================================

    /**
     * Hands a message to the behavior and goes on with the behavior it returned, recording its
     * effects.
     *
     * @param message the message
     * @throws IllegalStateException if the behavior has stopped
     * @throws RuntimeException the behavior's failure (a checked one inside a {@link CompletionException})
     */
    public void run(T message) {
        Objects.requireNonNull(message, "message");
        checkAlive();
        try {
            returned = driver.interpretMessage(message);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
        if (!driver.isAlive()) {
            stopped();
        }
    }

    /**
     * Runs the oldest message of the self inbox (what the behavior told itself, a timer tick
     * sent, a converted {@code pipeToSelf} result or ask reply, an adapted message).
     *
     * @throws AssertionError if the self inbox is empty
     */
    public void runOne() {
        final T m = context.selfInbox().poll();
        if (m == null) {
            throw new AssertionError("no message in the self inbox of " + context.self().path());
        }
        run(m);
    }

    /**
     * Hands a signal to the behavior ({@code Terminated}, {@code ChildFailed}, ...). An unhandled
     * {@code Terminated} throws a {@code DeathPactException}, as in an actor.
     *
     * @param signal the signal
     */
    public void signal(Signal signal) {
        Objects.requireNonNull(signal, "signal");
        checkAlive();
        try {
            returned = driver.interpretSignal(signal);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
        if (!driver.isAlive()) {
            stopped();
        }
    }

    private void checkAlive() {
        if (!alive) {
            throw new IllegalStateException("the behavior at " + context.self().path() + " has stopped");
        }
    }

    /** The behavior stopped: it gets {@code PostStop}, as an actor does. */
    private void stopped() {
        alive = false;
        driver.postStop();
    }

    /** @return whether the behavior has not stopped */
    public boolean isAlive() {
        return alive;
    }

    /** @return the current behavior, as the runtime holds it (never a marker such as {@code same()}) */
    public Behavior<T> currentBehavior() {
        return driver.currentBehavior();
    }

    /**
     * @return what the behavior returned for the last message or signal, unresolved: such as
     *         {@code Behaviors.same()}, {@code Behaviors.unhandled()} or {@code Behaviors.stopped()}
     *         (the initial behavior before anything ran)
     */
    public Behavior<T> returnedBehavior() {
        return returned;
    }

    // =====================================================================================
    // Effects
    // =====================================================================================

    void record(Effect effect) {
        effects.add(effect);
    }

    /** @return the oldest effect, removed, or {@link Effects#noEffects()} if there is none */
    public Effect retrieveEffect() {
        final Effect e = effects.poll();
        return e == null ? Effects.noEffects() : e;
    }

    /** @return every effect so far, oldest first, removed */
    public List<Effect> retrieveAllEffects() {
        final List<Effect> out = new ArrayList<>();
        Effect e;
        while ((e = effects.poll()) != null) {
            out.add(e);
        }
        return out;
    }

    /** @return whether there are effects not yet retrieved */
    public boolean hasEffects() {
        return !effects.isEmpty();
    }

    /**
     * Asserts that the oldest effect equals {@code expected} and removes it.
     *
     * @param expected the effect, from {@link Effects}
     * @throws AssertionError naming what was there instead
     */
    public void expectEffect(Effect expected) {
        final Effect actual = retrieveEffect();
        if (!expected.equals(actual)) {
            throw new AssertionError("expected effect " + expected + " but found " + actual);
        }
    }

    /**
     * Asserts that the oldest effect is of a class and removes it.
     *
     * @param effectClass the effect's class, such as {@code Effect.Spawned.class}
     * @param <E> the class
     * @return the effect, for further assertions
     * @throws AssertionError naming what was there instead
     */
    public <E extends Effect> E expectEffectClass(Class<E> effectClass) {
        final Effect actual = retrieveEffect();
        if (!effectClass.isInstance(actual)) {
            throw new AssertionError("expected an effect of class " + effectClass.getSimpleName() + " but found " + actual);
        }
        return effectClass.cast(actual);
    }

    // =====================================================================================
    // Inboxes and children
    // =====================================================================================

    /** @return what the behavior told {@code ctx.self()}, and converted results that arrived for it */
    public TestInbox<T> selfInbox() {
        return context.selfInbox();
    }

    /** @return the behavior's own ref: its self inbox's */
    public ActorRef<T> ref() {
        return context.self();
    }

    /**
     * @param name a child's name
     * @param <U> the child's message type
     * @return the inbox of what was told to that child
     * @throws AssertionError if the behavior has no child of that name
     */
    public <U> TestInbox<U> childInbox(String name) {
        return this.<U>child(name).selfInbox();
    }

    /**
     * @param child a child's ref, as a spawn returned it
     * @param <U> the child's message type
     * @return the inbox of what was told to that child
     */
    public <U> TestInbox<U> childInbox(ActorRef<U> child) {
        return childTestKit(child).selfInbox();
    }

    /**
     * @param child a child's ref, as a spawn returned it
     * @param <U> the child's message type
     * @return the behavior test kit the child runs in: run it to have the child process messages
     * @throws AssertionError if it is no child of the behavior
     */
    public <U> BehaviorTestKit<U> childTestKit(ActorRef<U> child) {
        return child(child.path().name());
    }

    private <U> BehaviorTestKit<U> child(String name) {
        final BehaviorTestKit<U> kit = context.childTestKit(name);
        if (kit == null) {
            throw new AssertionError("the behavior at " + context.self().path() + " has no child named " + name
                + "; children: " + context.childNames());
        }
        return kit;
    }

    @Override
    public String toString() {
        return "BehaviorTestKit(" + context.self().path() + ", " + driver.currentBehavior() + ")";
    }

    // =====================================================================================
    // The shared system
    // =====================================================================================

    /**
     * The system behind every behavior test kit and stand-alone inbox: what {@code ctx.system()}
     * returns, where unhandled messages are dead letters. It runs no behavior under test; one
     * daemon dispatcher thread that soon parks.
     *
     * @return the shared system, started on first use
     */
    static ActorSystem system() {
        return SharedSystem.SYSTEM;
    }

    private static final class SharedSystem {
        static final ActorSystem SYSTEM = ActorSystem.create("behavior-testkit", ActorSystemSettings.builder()
            .defaultDispatcher(DispatcherSettings.of(DispatcherSettings.DEFAULT_NAME).withThreads(1)
                .withIdleStrategy(0, 0, Duration.ofMillis(100)))
            .daemonThreads(true)
            .build());
    }

    /** For the context: the behaviors it spawns get kits of their own. */
    static <U> BehaviorTestKit<U> childKit(ActorPath path, Behavior<U> behavior) {
        return new BehaviorTestKit<>(path, behavior);
    }
}
