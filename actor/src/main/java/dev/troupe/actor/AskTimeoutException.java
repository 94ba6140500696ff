package dev.troupe.actor;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Fails an ask whose reply did not arrive in time: the stage returned by {@link AskPattern#ask}
 * completes exceptionally with it (stages derived from it with {@code thenApply} and the like see
 * it as the cause of a {@link java.util.concurrent.CompletionException}), and
 * {@link ActorContext#ask} hands it to its response function. It names the actor asked and the
 * timeout, so an integration can answer for it (the Spring Boot starter maps it to HTTP 504).
 */
public final class AskTimeoutException extends TimeoutException {

    private static final long serialVersionUID = 1L;

    private final transient ActorPath target;
    private final Duration timeout;

    /**
     * @param message which ask timed out, after how long
     */
    public AskTimeoutException(String message) {
        this(null, null, message);
    }

    /**
     * @param target the path of the actor asked, or null if unknown
     * @param timeout how long the ask waited, or null if unknown
     * @param message which ask timed out, after how long
     */
    public AskTimeoutException(ActorPath target, Duration timeout, String message) {
        super(message);
        this.target = target;
        this.timeout = timeout;
    }

    /** @return the path of the actor asked, or null if unknown */
    public ActorPath target() {
        return target;
    }

    /** @return how long the ask waited for its reply, or null if unknown */
    public Duration timeout() {
        return timeout;
    }
}
