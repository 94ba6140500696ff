package dev.troupe.actor;

import dev.troupe.actor.internal.PromiseRef;
import dev.troupe.actor.internal.SystemRuntime;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Request-response from outside an actor: send a message that carries a reply-to ref and
 * get the reply as a {@link CompletionStage}. Inside an actor, use
 * {@link ActorContext#ask} instead: it delivers the reply as a message on the actor's thread.
 *
 * <pre>{@code
 * // the ref knows its system; a method reference lets Java infer the reply type
 * CompletionStage<Stock> stock = AskPattern.ask(sku, GetStock::new, Duration.ofSeconds(3));
 *
 * // with a lambda, name the reply class so that a chain infers it
 * CompletionStage<Integer> free = AskPattern.ask(sku, Stock.class, replyTo -> new GetStock(replyTo), Duration.ofSeconds(3))
 *     .thenApply(Stock::free);
 * }</pre>
 *
 * <p>Why two forms: Java infers the reply type of a lambda such as
 * {@code replyTo -> new GetStock(replyTo)} only from an assignment target, not from a
 * {@code thenApply} that follows. The reply class fixes it, and is checked: a reply of another
 * class fails the stage with a {@link ClassCastException} naming both.
 *
 * <p>The stage fails with an {@link AskTimeoutException} (naming the actor asked and the
 * timeout) when no reply arrives in time; a reply after that is a dead letter
 * ({@code ask-expired}). Each ask allocates its reply ref, a future and a timer entry; prefer
 * {@code tell} on hot paths.
 */
public final class AskPattern {

    private AskPattern() {
    }

    /**
     * Asks an actor made by the runtime (a local actor, a remote ref, a test probe), timing the
     * wait on the system the ref belongs to.
     *
     * @param target the actor to ask
     * @param createRequest builds the request around the reply-to ref
     * @param timeout how long to wait for the reply, positive
     * @param <Req> the request type
     * @param <Res> the reply type
     * @return completes with the first reply, or fails with {@link AskTimeoutException}
     * @throws IllegalArgumentException if the ref belongs to no system (then pass the system)
     */
    public static <Req, Res> CompletionStage<Res> ask(ActorRef<Req> target, Function<ActorRef<Res>, Req> createRequest, Duration timeout) {
        return PromiseRef.ask(PromiseRef.runtimeOf(target), target, timeout, null, createRequest).future();
    }

    /**
     * Asks an actor and checks the reply's class; the reply class lets Java infer the stage's
     * type in a {@code thenApply} chain whatever the request factory is.
     *
     * @param target the actor to ask
     * @param replyClass the class of the reply
     * @param createRequest builds the request around the reply-to ref
     * @param timeout how long to wait for the reply, positive
     * @param <Req> the request type
     * @param <Res> the reply type
     * @return completes with the first reply, fails with {@link AskTimeoutException}, or with a
     *         {@link ClassCastException} if the reply is not a {@code replyClass}
     * @throws IllegalArgumentException if the ref belongs to no system (then pass the system)
     */
    public static <Req, Res> CompletionStage<Res> ask(ActorRef<Req> target, Class<Res> replyClass,
                                                      Function<ActorRef<Res>, Req> createRequest, Duration timeout) {
        Objects.requireNonNull(replyClass, "replyClass");
        return PromiseRef.ask(PromiseRef.runtimeOf(target), target, timeout, replyClass, createRequest).future();
    }

    /**
     * Asks an actor, timing the wait on the given system's timer: for refs that do not know their
     * system (an {@link ActorRef} implemented outside the runtime).
     *
     * @param target the actor to ask
     * @param createRequest builds the request around the reply-to ref
     * @param timeout how long to wait for the reply, positive
     * @param system the system whose timer bounds the wait
     * @param <Req> the request type
     * @param <Res> the reply type
     * @return completes with the first reply, or fails with {@link AskTimeoutException}
     */
    public static <Req, Res> CompletionStage<Res> ask(
        ActorRef<Req> target, Function<ActorRef<Res>, Req> createRequest, Duration timeout, ActorSystem system) {
        return PromiseRef.ask(runtime(system), target, timeout, null, createRequest).future();
    }

    /**
     * Asks an actor and checks the reply's class, timing the wait on the given system's timer.
     *
     * @param target the actor to ask
     * @param replyClass the class of the reply
     * @param createRequest builds the request around the reply-to ref
     * @param timeout how long to wait for the reply, positive
     * @param system the system whose timer bounds the wait
     * @param <Req> the request type
     * @param <Res> the reply type
     * @return completes with the first reply, fails with {@link AskTimeoutException}, or with a
     *         {@link ClassCastException} if the reply is not a {@code replyClass}
     */
    public static <Req, Res> CompletionStage<Res> ask(ActorRef<Req> target, Class<Res> replyClass,
                                                      Function<ActorRef<Res>, Req> createRequest, Duration timeout, ActorSystem system) {
        Objects.requireNonNull(replyClass, "replyClass");
        return PromiseRef.ask(runtime(system), target, timeout, replyClass, createRequest).future();
    }

    private static SystemRuntime runtime(ActorSystem system) {
        return Objects.requireNonNull(system, "system").runtime();
    }
}
