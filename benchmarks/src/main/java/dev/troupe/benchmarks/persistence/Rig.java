package dev.troupe.benchmarks.persistence;

import java.util.concurrent.CompletionStage;

/** One side of the persistence benchmark: entities that persist BenchEvents, asked from outside. */
interface Rig extends AutoCloseable {

    /** @return what it is */
    String name();

    /** Spawns the entities (ids {@code prefix + i}), optionally snapshotting every 100 events. */
    void spawn(String prefix, int entities, boolean snapshots);

    /** @return the entity's event count once one more event is durable */
    CompletionStage<Long> persist(int entity);

    /** @return the count once {@code n} more events (one atomic write) are durable */
    CompletionStage<Long> persistMany(int entity, int n);

    /** @return the entity's count (after its recovery) */
    CompletionStage<Long> count(int entity);

    @Override
    void close() throws Exception;
}
