package dev.troupe.persistence;

/**
 * A failure of the persistence layer, with the reason it is counted under. An entity whose
 * write or recovery fails throws one from its turn, so its supervision decides what follows
 * (stop by default; {@code Behaviors.supervise(...).onFailure(PersistenceException.class,
 * SupervisorStrategy.restartWithBackoff(...))} recovers it once the store is back).
 */
public class PersistenceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient PersistenceFailure reason;

    /**
     * @param reason the counted reason
     * @param message what happened, naming the persistence id
     * @param cause the store's exception, or null
     */
    public PersistenceException(PersistenceFailure reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** @return the counted reason */
    public PersistenceFailure reason() {
        return reason;
    }
}
