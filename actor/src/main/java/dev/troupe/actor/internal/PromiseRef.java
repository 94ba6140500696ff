package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.PendingAsk;
import dev.troupe.actor.spi.SystemMessage;
import dev.troupe.actor.spi.Watch;

import java.util.concurrent.CompletableFuture;

/**
 * The temporary reply-to ref of an ask: the first message completes the future; a timer
 * entry fails it with {@link AskTimeoutException}. It lives under {@code /temp} until then,
 * so a remote node can address it. Later replies are dead letters as {@code ask-expired}.
 */
public final class PromiseRef<R> extends TimerTask implements InternalActorRef<R>, PendingAsk {

    private final SystemRuntime runtime;
    private final ActorPath path;
    private final ActorRef<?> target;
    private final long timeoutMillis;
    private final CompletableFuture<R> future = new CompletableFuture<>();
    private volatile Class<?> requestClass;
    private volatile long deadlineNanos = Long.MAX_VALUE;

    /**
     * @param runtime the system's runtime
     * @param target the actor asked
     * @param timeoutMillis the timeout, for the failure message
     */
    public PromiseRef(SystemRuntime runtime, ActorRef<?> target, long timeoutMillis) {
        this.runtime = runtime;
        this.target = target;
        this.timeoutMillis = timeoutMillis;
        this.path = runtime.newTempPath();
        runtime.registerTempRef(this);
    }

    /**
     * Arms the timeout; call after the request is built.
     *
     * @param timeoutNanos the timeout
     */
    public void armTimeout(long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        deadlineNanos = deadline;
        runtime.timers.schedule(this, deadline);
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

    /**
     * @param requestClass the class of the request, for the failure message
     */
    public void requestClass(Class<?> requestClass) {
        this.requestClass = requestClass;
    }

    @Override
    public void tell(R message) {
        if (message == null) {
            throw new NullPointerException("message must not be null");
        }
        if (future.complete(message)) {
            runtime.unregisterTempRef(this);
            runtime.timers.cancel(this);
        } else {
            runtime.deadLetters.publish(message, path, DeadLetterReason.ASK_EXPIRED);
        }
    }

    @Override
    long fire(long now) {
        final Class<?> rc = requestClass;
        if (future.completeExceptionally(new AskTimeoutException("Ask timed out on [" + target.path() + "] after ["
            + timeoutMillis + " ms]. Message of type [" + (rc == null ? "unknown" : rc.getName())
            + "]. A typical reason is that the recipient did not reply, or is not running.",
            target.path(), java.time.Duration.ofMillis(timeoutMillis)))) {
            runtime.unregisterTempRef(this);
        }
        return -1;
    }

    @Override
    public ActorPath path() {
        return path;
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
