package dev.troupe.actor;

import org.slf4j.Logger;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An actor's view of itself and of the system, handed to its behavior.
 *
 * <p><b>Not thread-safe:</b> use it only on the actor's own thread, inside message and
 * signal handlers and {@link Behaviors#setup setup}; never from a future's callback or
 * another thread (use {@link #pipeToSelf} for that).
 *
 * @param <T> the type of message the actor accepts
 */
public interface ActorContext<T> {

    /** @return the actor's own ref */
    ActorRef<T> self();

    /** @return the system the actor belongs to */
    ActorSystem system();

    /**
     * The actor's SLF4J logger, named after the class that defined its behavior (the class of an
     * {@link AbstractBehavior}, or the class whose code passed the functions to
     * {@link Behaviors}), so that {@code logging.level.com.acme.orders=DEBUG} reaches the actors
     * {@code com.acme.orders} wrote. Made once per actor, on first use.
     *
     * <p>While the actor processes a message or signal, the MDC holds {@code troupePath} (the
     * actor's path) and {@code troupeSystem} (its system's name), for this logger and any other
     * on the actor's thread.
     *
     * @return the logger
     */
    Logger log();

    /**
     * Spawns a child with a name unique among its siblings.
     *
     * @param behavior the child's initial behavior
     * @param name the child's name
     * @param <U> the child's message type
     * @return the child's ref
     * @throws InvalidActorNameException if the name is malformed or taken
     */
    <U> ActorRef<U> spawn(Behavior<U> behavior, String name);

    /**
     * Spawns a child with a dispatcher, mailbox or metrics choice.
     *
     * @param behavior the child's initial behavior
     * @param name the child's name
     * @param props where and how it runs
     * @param <U> the child's message type
     * @return the child's ref
     */
    <U> ActorRef<U> spawn(Behavior<U> behavior, String name, Props props);

    /**
     * Spawns a child with a generated name.
     *
     * @param behavior the child's initial behavior
     * @param <U> the child's message type
     * @return the child's ref
     */
    <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior);

    /**
     * Spawns a child with a generated name and a dispatcher, mailbox or metrics choice.
     *
     * @param behavior the child's initial behavior
     * @param props where and how it runs
     * @param <U> the child's message type
     * @return the child's ref
     */
    <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior, Props props);

    /**
     * Stops a child (asynchronously). Only children can be stopped this way; an actor
     * stops itself by returning {@link Behaviors#stopped()}.
     *
     * @param child a child of this actor
     * @throws IllegalArgumentException if the ref is not a child of this actor
     */
    void stop(ActorRef<?> child);

    /** @return a snapshot of the live children */
    Collection<ActorRef<Void>> children();

    /**
     * @param name a child's name
     * @return the live child of that name, if any
     */
    Optional<ActorRef<Void>> child(String name);

    /**
     * Watches another actor: a {@link Terminated} signal arrives when it stops, at once if
     * it has already stopped. Watching twice is one watch.
     *
     * @param other the actor to watch, local or remote
     */
    void watch(ActorRef<?> other);

    /**
     * Watches another actor and receives {@code msg} instead of a {@link Terminated} signal.
     *
     * @param other the actor to watch
     * @param msg the message to receive when it stops
     */
    void watchWith(ActorRef<?> other, T msg);

    /**
     * Stops watching; no signal arrives for it afterwards.
     *
     * @param other the watched actor
     */
    void unwatch(ActorRef<?> other);

    /**
     * Delivers {@code msg} after {@code timeout} passes with no message processed, and again
     * after each further such period. Resetting on each message allocates nothing.
     *
     * @param timeout the idle time, positive
     * @param msg the message to receive
     */
    void setReceiveTimeout(Duration timeout, T msg);

    /** Cancels the receive timeout. */
    void cancelReceiveTimeout();

    /**
     * A ref that accepts another message type and turns it into this actor's type, on this
     * actor's thread. One adapter per message class: asking again returns a ref that uses
     * the newest function. Each adapted message allocates one small envelope.
     *
     * @param messageClass the class of the messages to adapt
     * @param adapter the conversion
     * @param <U> the adapted type
     * @return the adapter ref
     */
    <U> ActorRef<U> messageAdapter(Class<U> messageClass, Function<U, T> adapter);

    /**
     * Sends the outcome of a future to this actor as a message, converted on this actor's
     * thread. Use it instead of touching actor state from a callback.
     *
     * <p>{@code applyToResult} only converts. If the result cannot be delivered (the actor has
     * stopped, its bounded mailbox is full), it runs where the result arrived, to make the dead
     * letter the message the actor would have received.
     *
     * @param future the pending result
     * @param applyToResult turns the value or failure (one of them null) into a message
     * @param <V> the value type
     */
    <V> void pipeToSelf(CompletionStage<V> future, BiFunction<V, Throwable, T> applyToResult);

    /**
     * Asks another actor from inside this one: sends the request {@code createRequest} builds
     * around a temporary reply-to ref, and delivers what happens next to this actor as a message,
     * converted by {@code applyToResponse} on this actor's thread: the reply (failure null), or a
     * failure (reply null): an {@link AskTimeoutException} when no reply arrived within
     * {@code timeout}, a {@link ClassCastException} when the reply is not a {@code resClass}.
     *
     * <pre>{@code
     * ctx.ask(Stock.class, inventory, Duration.ofSeconds(3), replyTo -> new GetStock(sku, replyTo),
     *     (stock, failure) -> stock != null ? new StockKnown(stock) : new StockUnknown(failure));
     * }</pre>
     *
     * <p>Each ask allocates its reply ref, a future, a timer entry and the converted message. As
     * with {@link #pipeToSelf}, {@code applyToResponse} only converts; it makes the dead letter
     * when the outcome cannot be delivered.
     *
     * @param resClass the class of the reply
     * @param target the actor to ask
     * @param timeout how long to wait for the reply, positive
     * @param createRequest builds the request around the reply-to ref
     * @param applyToResponse turns the reply or the failure (one of them null) into a message to this actor
     * @param <Req> the request type
     * @param <Res> the reply type
     */
    <Req, Res> void ask(Class<Res> resClass, ActorRef<Req> target, Duration timeout,
                        Function<ActorRef<Res>, Req> createRequest, BiFunction<Res, Throwable, T> applyToResponse);
}
