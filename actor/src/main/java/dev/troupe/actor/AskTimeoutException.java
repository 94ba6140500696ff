package dev.troupe.actor;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Fails an ask whose reply did not arrive in time: the stage returned by {@link AskPattern#ask}
 * completes exceptionally with it (stages derived from it with {@code thenApply} and the like see
 * it as the cause of a {@link java.util.concurrent.CompletionException}), and
 * {@link ActorContext#ask} hands it to its response function. {@link #target()} and
 * {@link #timeout()} say which actor was asked and how long the ask waited, so an integration
 * (the Spring starter's HTTP problem details: 504) can report them without parsing the message.
 */
public final class AskTimeoutException extends TimeoutException {

    private static final long serialVersionUID = 1L;

    private final transient ActorPath target;
    private final Duration timeout;

    /**
     * @param message which ask timed out, after how long
     */
    public AskTimeoutException(String message) {
        this(message, null, null);
    }

    /**
     * @param message which ask timed out, after how long
     * @param target the path of the actor that was asked, or null
     * @param timeout how long the ask waited, or null
     */
    public AskTimeoutException(String message, ActorPath target, Duration timeout) {
        super(message);
        this.target = target;
        this.timeout = timeout;
    }

    /** @return the path of the actor that was asked, or null when unknown */
    public ActorPath target() {
        return target;
    }

    /** @return how long the ask waited, or null when unknown */
    public Duration timeout() {
        return timeout;
    }
}
