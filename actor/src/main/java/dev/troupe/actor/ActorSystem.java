package dev.troupe.actor;

import dev.troupe.actor.internal.SystemRuntime;
import dev.troupe.actor.metrics.SystemMetrics;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A running set of actors with their dispatchers, timer wheel and dead letters.
 *
 * <pre>{@code
 * ActorSystem system = ActorSystem.create("shop");
 * ActorRef<Counter.Command> counter = system.spawn(Counter.create(), "counter");
 * counter.tell(new Counter.Increment());
 * system.terminate().toCompletableFuture().join();
 * }</pre>
 *
 * <p>All methods are thread-safe. Top-level actors spawned here are children of the
 * {@code /user} guardian. {@link #terminate()} stops every actor (children before
 * parents, each with {@link PostStop}) and completes once all have stopped; messages
 * told afterwards go to {@link #deadLetters()} as {@code terminated}.
 */
public final class ActorSystem {

    private final SystemRuntime runtime;
    private final ConcurrentHashMap<Class<?>, Object> extensions = new ConcurrentHashMap<>();

    private ActorSystem(String name, ActorSystemSettings settings) {
        // The runtime registers its hooks for sibling modules as an extension (ActorSystemSpi.of finds
        // them there), so this class needs no public method that hands the runtime out.
        this.runtime = new SystemRuntime(this, name, settings);
    }

    /**
     * Starts a system with the default settings.
     *
     * @param name the system's name: letters, digits, '-' and '_'
     * @return the running system
     */
    public static ActorSystem create(String name) {
        return create(name, ActorSystemSettings.defaults());
    }

    /**
     * Starts a system.
     *
     * @param name the system's name: letters, digits, '-' and '_'
     * @param settings dispatchers, default mailbox, timers, dead-letter reporting
     * @return the running system
     */
    public static ActorSystem create(String name, ActorSystemSettings settings) {
        ActorPath.root(name);
        return new ActorSystem(name, Objects.requireNonNull(settings, "settings"));
    }

    /** @return the runtime, for this package's factories (ask) */
    SystemRuntime runtime() {
        return runtime;
    }

    /**
     * Spawns a top-level actor. Thread-safe; the behavior is set up on the actor's thread.
     *
     * @param behavior the initial behavior
     * @param name a name unique among top-level actors
     * @param <T> the message type
     * @return the actor's ref
     * @throws InvalidActorNameException if the name is malformed or taken
     * @throws IllegalStateException if the system is terminating
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
        return spawn(behavior, name, Props.empty());
    }

    /**
     * Spawns a top-level actor with a dispatcher, mailbox or metrics choice.
     *
     * @param behavior the initial behavior
     * @param name a name unique among top-level actors
     * @param props where and how it runs
     * @param <T> the message type
     * @return the actor's ref
     */
    public <T> ActorRef<T> spawn(Behavior<T> behavior, String name, Props props) {
        return runtime.spawnUser(behavior, name, props);
    }

    /**
     * Spawns a top-level actor with a generated name.
     *
     * @param behavior the initial behavior
     * @param <T> the message type
     * @return the actor's ref
     */
    public <T> ActorRef<T> spawnAnonymous(Behavior<T> behavior) {
        return runtime.spawnUser(behavior, null, Props.empty());
    }

    /**
     * Spawns an actor under {@code /system}, for integrations (transports, bridges) rather
     * than application actors.
     *
     * @param behavior the initial behavior
     * @param name a name unique under {@code /system}
     * @param props where and how it runs
     * @param <T> the message type
     * @return the actor's ref
     */
    public <T> ActorRef<T> systemActorOf(Behavior<T> behavior, String name, Props props) {
        return runtime.spawnSystem(behavior, name, props);
    }

    /**
     * Stops a top-level actor, asynchronously.
     *
     * @param ref an actor spawned by {@link #spawn}
     */
    public void stop(ActorRef<?> ref) {
        runtime.stopUser(ref);
    }

    /**
     * Finds a live local actor by path (the uid is ignored when 0).
     *
     * @param path the path, with or without this node's address
     * @param <T> the message type the caller expects
     * @return the actor, if it is alive here
     */
    public <T> Optional<ActorRef<T>> resolveLocal(ActorPath path) {
        return Optional.ofNullable(runtime.<T>resolveLocal(path));
    }

    /**
     * Stops every actor and then the system's threads. Idempotent.
     *
     * @return completes when every actor has stopped and the threads are shut down
     */
    public CompletionStage<Void> terminate() {
        return runtime.terminate();
    }

    /**
     * Shuts down gracefully: from now on messages told from outside the system's actors go to
     * dead letters as {@code shutdown}; the actors go on until every mailbox is empty or
     * {@code drainTimeout} passes; then the system terminates, and whatever is still queued
     * becomes dead letters as {@code shutdown}.
     *
     * @param drainTimeout how long to let mailboxes drain
     * @return completes when the system has terminated
     */
    public CompletionStage<Void> shutdown(Duration drainTimeout) {
        return runtime.shutdown(Objects.requireNonNull(drainTimeout, "drainTimeout"));
    }

    /** @return completes when the system has terminated */
    public CompletionStage<Void> whenTerminated() {
        return runtime.whenTerminated();
    }

    /** @return whether {@link #terminate()} or {@link #shutdown} has begun */
    public boolean isTerminating() {
        return runtime.isTerminating();
    }

    /** @return whether the system is draining for a graceful shutdown or terminating */
    public boolean isShuttingDown() {
        return runtime.isShuttingDown();
    }

    /** @return whether the system has fully terminated */
    public boolean isTerminated() {
        return runtime.isTerminated();
    }

    /**
     * Runs a hook once the system has terminated (at once if it already has).
     *
     * @param hook the hook
     */
    public void registerOnTermination(Runnable hook) {
        runtime.registerOnTermination(Objects.requireNonNull(hook, "hook"));
    }

    /**
     * Returns the system's single instance of an extension, creating it on first use.
     *
     * @param type the extension's class
     * @param factory creates it
     * @param <E> the extension type
     * @return the extension
     */
    public <E> E extension(Class<E> type, Function<ActorSystem, E> factory) {
        final Object existing = extensions.get(type);
        if (existing != null) {
            return type.cast(existing);
        }
        return type.cast(extensions.computeIfAbsent(type, t -> factory.apply(this)));
    }

    /** @return the system's name */
    public String name() {
        return runtime.name();
    }

    /** @return a random id of this incarnation of the system, never 0 */
    public long uid() {
        return runtime.uid();
    }

    /** @return the settings the system runs with */
    public ActorSystemSettings settings() {
        return runtime.settings();
    }

    /** @return where undeliverable messages go */
    public DeadLetters deadLetters() {
        return runtime.deadLetters();
    }

    /** @return the system's metric sources */
    public SystemMetrics metrics() {
        return runtime.metrics();
    }

    /** @return nanoseconds since the system started */
    public long uptimeNanos() {
        return runtime.uptimeNanos();
    }

    @Override
    public String toString() {
        return "ActorSystem(" + runtime.name() + ")";
    }
}
