package dev.troupe.actor;

import java.util.concurrent.TimeoutException;

/** Completes an ask whose reply did not arrive in time. */
public final class AskTimeoutException extends TimeoutException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which ask timed out, after how long
     */
    public AskTimeoutException(String message) {
        super(message);
    }
}
