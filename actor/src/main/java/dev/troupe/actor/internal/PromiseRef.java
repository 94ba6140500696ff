package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The temporary reply-to ref of an ask: the first message completes the future; a timer
 * entry fails it with {@link AskTimeoutException}. It lives under {@code /temp} (with a random
 * name, see {@link SystemRuntime#newTempPath()}) until then, so a remote node can address it.
 * Later replies are dead letters as {@code ask-expired}.
 *
 * <p>An ask allocates this ref, its path, a future and a timer entry: asks are for the edges
 * of an actor system (a controller asking an actor), not for its hot paths.
 */
public final class PromiseRef<R> extends TimerTask implements InternalActorRef<R>, PendingAsk {

    private final SystemRuntime runtime;
    private final ActorPath path;
    private final ActorRef<?> target;
    private final Duration timeout;
    /** The class a reply must have, or null to take any. */
    private final Class<R> replyClass;
    private final CompletableFuture<R> future = new CompletableFuture<>();
    private volatile Class<?> requestClass;
    private volatile long deadlineNanos = Long.MAX_VALUE;

    private PromiseRef(SystemRuntime runtime, ActorRef<?> target, Duration timeout, Class<R> replyClass) {
        this.runtime = runtime;
        this.target = target;
        this.timeout = timeout;
        this.replyClass = replyClass;
        this.path = runtime.newTempPath();
        runtime.registerTempRef(this);
    }

    /**
     * Sends a request built around a new reply-to ref and returns the ref, whose future the
     * reply completes. Checks the arguments the same way for every kind of ask.
     *
     * @param runtime the runtime whose timer bounds the wait
     * @param target the actor asked
     * @param timeout how long to wait, positive
     * @param replyClass the class a reply must have (another fails the future with a
     *        {@link ClassCastException}), or null to take any
     * @param createRequest builds the request around the reply-to ref
     * @param <Req> the request type
     * @param <Res> the reply type
     * @return the reply-to ref
     * @throws IllegalArgumentException if the timeout is not positive
     * @throws NullPointerException if an argument is null or the factory returns null
     */
    public static <Req, Res> PromiseRef<Res> ask(SystemRuntime runtime, ActorRef<Req> target, Duration timeout,
                                                 Class<Res> replyClass, Function<ActorRef<Res>, Req> createRequest) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(createRequest, "createRequest");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("ask timeout must be positive: " + timeout);
        }
        final PromiseRef<Res> promise = new PromiseRef<>(runtime, target, timeout, replyClass);
        final Req request;
        try {
            request = createRequest.apply(promise);
            if (request == null) {
                throw new NullPointerException("the ask's request factory returned null");
            }
        } catch (RuntimeException | Error e) {
            runtime.unregisterTempRef(promise);
            throw e;
        }
        promise.requestClass = request.getClass();
        final long deadline = System.nanoTime() + timeout.toNanos();
        promise.deadlineNanos = deadline;
        runtime.timers.schedule(promise, deadline);
        final MessageInstrumentation mi = runtime.instrumentation;
        if (mi == null) {
            target.tell(request);
        } else {
            observedTell(mi, promise, target, request);
        }
        return promise;
    }

    /** The request of an ask with instrumentation: told inside the ask's token, which ends with the future (allocates; asks do anyway). */
    private static <Req> void observedTell(MessageInstrumentation mi, PromiseRef<?> promise, ActorRef<Req> target, Req request) {
        final Object token = mi.beforeAsk(target, request);
        try {
            target.tell(request);
        } finally {
            mi.afterAskSent(token);
        }
        promise.future.whenComplete((reply, failure) -> mi.askCompleted(token, failure));
    }

    /**
     * @param target a ref
     * @return the runtime of the system the ref belongs to, whose timer bounds an ask of it
     * @throws IllegalArgumentException if the ref belongs to no system
     */
    public static SystemRuntime runtimeOf(ActorRef<?> target) {
        Objects.requireNonNull(target, "target");
        final ActorSystem system = target instanceof InternalActorRef ? ((InternalActorRef<?>) target).system() : null;
        if (system == null) {
            throw new IllegalArgumentException(target + " does not belong to an actor system: use AskPattern.ask(target, createRequest, timeout, system)");
        }
        return (SystemRuntime) dev.troupe.actor.spi.ActorSystemSpi.of(system);
    }

    @Override
    public long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public boolean isPending() {
        return !future.isDone();
    }

    @Override
    public boolean fail(Throwable cause) {
        if (future.completeExceptionally(cause)) {
            runtime.unregisterTempRef(this);
            runtime.timers.cancel(this);
            return true;
        }
        return false;
    }

    /** @return the future the reply completes */
    public CompletableFuture<R> future() {
        return future;
    }

    @Override
    public void tell(R message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        final boolean completed;
        if (replyClass == null || replyClass.isInstance(message)) {
            completed = future.complete(message);
        } else {
            completed = future.completeExceptionally(new ClassCastException("the reply to an ask of " + target.path()
                + " is a " + message.getClass().getName() + ", not a " + replyClass.getName()));
        }
        if (completed) {
            runtime.unregisterTempRef(this);
            runtime.timers.cancel(this);
        } else {
            runtime.deadLetters.publish(message, path, DeadLetterReason.ASK_EXPIRED);
        }
    }

    @Override
    long fire(long now) {
        final Class<?> rc = requestClass;
        future.completeExceptionally(new AskTimeoutException("Ask timed out on [" + target.path()
            + "] after [" + timeout.toMillis() + " ms]. Message of type [" + (rc == null ? "unknown" : rc.getName())
            + "]. A typical reason is that the recipient did not reply, or is not running.", target.path(), timeout));
        // Whether or not the timeout won (the caller, or a transport through fail(), may have completed the future), the ref is done.
        runtime.unregisterTempRef(this);
        return -1;
    }

    @Override
    public ActorPath path() {
        return path;
    }

    @Override
    public ActorSystem system() {
        return runtime.system();
    }

    @Override
    public void sendSystem(SystemMessage message) {
        if (message instanceof Watch && future.isDone()) {
            ((Watch) message).watcher().sendSystem(new DeathWatchNotification(this, null));
        }
    }

    @Override
    public boolean isLocal() {
        return true;
    }

    @Override
    public String toString() {
        return "ActorRef(" + path + ")";
    }
}
