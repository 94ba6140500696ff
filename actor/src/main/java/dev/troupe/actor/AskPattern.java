package dev.troupe.actor;

import dev.troupe.actor.internal.PromiseRef;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Request-response from outside an actor: send a message that carries a reply-to ref and
 * get the reply as a {@link CompletionStage}.
 *
 * <pre>{@code
 * CompletionStage<Stock> reply = AskPattern.ask(sku, replyTo -> new GetStock(replyTo), Duration.ofSeconds(3), system);
 * }</pre>
 *
 * <p>Each ask allocates its reply ref, a future and a timer entry; prefer {@code tell} on hot paths.
 */
public final class AskPattern {

    private AskPattern() {
    }

    /**
     * @param target the actor to ask
     * @param messageFactory builds the request around the reply-to ref
     * @param timeout how long to wait for the reply
     * @param system the system whose timer bounds the wait
     * @param <Req> the request type
     * @param <Res> the reply type
     * @return completes with the first reply, or fails with {@link AskTimeoutException}
     */
    public static <Req, Res> CompletionStage<Res> ask(
        ActorRef<Req> target, Function<ActorRef<Res>, Req> messageFactory, Duration timeout, ActorSystem system) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(messageFactory, "messageFactory");
        Objects.requireNonNull(system, "system");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("ask timeout must be positive: " + timeout);
        }
        final PromiseRef<Res> promise = new PromiseRef<>(system.runtime(), target, timeout.toMillis());
        final Req request = messageFactory.apply(promise);
        promise.requestClass(request == null ? null : request.getClass());
        promise.armTimeout(timeout.toNanos());
        target.tell(request);
        return promise.future();
    }
}
