package dev.troupe.persistence.spi;

import java.util.concurrent.CompletionStage;

/**
 * Where durable-state entities keep their latest state, one row per persistence id with a
 * revision. A write whose revision is not the stored one + 1 is refused (optimistic
 * concurrency), so two instances of one entity can never both win. Thread-safe; non-blocking.
 */
public interface DurableStateStore {

    /**
     * @param persistenceId whose state
     * @return the stored state and revision, {@link StoredState#NONE} if none
     */
    CompletionStage<StoredState> load(String persistenceId);

    /**
     * Stores a state if the stored revision is {@code write.revision() - 1}, then completes the write.
     *
     * @param write the write; owned by the store until completed
     */
    void write(StateWrite write);
}
