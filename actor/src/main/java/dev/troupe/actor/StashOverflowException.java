package dev.troupe.actor;

/** Thrown by {@link StashBuffer#stash} when the buffer is full. */
public final class StashOverflowException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what overflowed
     */
    public StashOverflowException(String message) {
        super(message);
    }
}
