package dev.troupe.persistence;

import dev.troupe.actor.Signal;

/**
 * Delivered to an entity's signal handler once its state is recovered (snapshot and events
 * applied), before its first command is handled.
 */
public final class RecoveryCompleted implements Signal {

    private static final RecoveryCompleted INSTANCE = new RecoveryCompleted();

    private RecoveryCompleted() {
    }

    /** @return the signal */
    public static RecoveryCompleted instance() {
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "RecoveryCompleted";
    }
}
