package dev.troupe.actor;

/** Thrown when an actor is spawned with a name that is malformed or already taken by a sibling. */
public final class InvalidActorNameException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the name
     */
    public InvalidActorNameException(String message) {
        super(message);
    }
}
