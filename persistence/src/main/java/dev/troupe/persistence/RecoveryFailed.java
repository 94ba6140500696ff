package dev.troupe.persistence;

import dev.troupe.actor.Signal;

/**
 * Delivered to an entity's signal handler when its state could not be recovered (the store
 * failed, or a stored event or snapshot could not be read back); the entity then fails with
 * {@link #failure()}, so its supervision decides (stop by default).
 */
public final class RecoveryFailed implements Signal {

    private final Throwable failure;

    /** @param failure why */
    public RecoveryFailed(Throwable failure) {
        this.failure = failure;
    }

    /** @return why recovery failed */
    public Throwable failure() {
        return failure;
    }

    @Override
    public String toString() {
        return "RecoveryFailed(" + failure + ")";
    }
}
