package dev.troupe.persistence;

import dev.troupe.actor.ActorSystem;

import java.util.Objects;

/**
 * The persistence of one actor system: its store and counters. Start it once, before spawning
 * persistent entities; they find it through their system.
 *
 * <pre>{@code
 * Persistence.start(system, PersistenceSettings.of(InMemoryStore.create()));
 * }</pre>
 */
public final class Persistence {

    private final ActorSystem system;
    private final PersistenceSettings settings;
    private final PersistenceMetrics metrics;

    private Persistence(ActorSystem system, PersistenceSettings settings) {
        this.system = system;
        this.settings = settings;
        this.metrics = new PersistenceMetrics(settings.storeMetrics());
    }

    /**
     * Installs persistence on a system; the store is closed when the system terminates.
     *
     * @param system the system
     * @param settings the store and bounds
     * @return the system's persistence
     * @throws IllegalStateException if the system already has persistence with other settings
     */
    public static Persistence start(ActorSystem system, PersistenceSettings settings) {
        Objects.requireNonNull(settings, "settings");
        final Persistence p = system.extension(Persistence.class, s -> {
            final Persistence made = new Persistence(s, settings);
            final AutoCloseable c = settings.closeable();
            if (c != null) {
                s.registerOnTermination(() -> {
                    try {
                        c.close();
                    } catch (Exception e) {
                        // closing at termination: nothing to hand the failure to
                    }
                });
            }
            return made;
        });
        if (p.settings != settings) {
            throw new IllegalStateException("persistence of " + system.name() + " was already started with store " + p.settings.storeName());
        }
        return p;
    }

    /**
     * @param system a system
     * @return its persistence
     * @throws IllegalStateException if {@link #start} was not called for it
     */
    public static Persistence get(ActorSystem system) {
        return system.extension(Persistence.class, s -> {
            throw new IllegalStateException("no persistence on actor system " + s.name()
                + ": call Persistence.start(system, PersistenceSettings.of(store)) before spawning persistent entities");
        });
    }

    /** @return the system */
    public ActorSystem system() {
        return system;
    }

    /** @return the settings */
    public PersistenceSettings settings() {
        return settings;
    }

    /** @return the counters */
    public PersistenceMetrics metrics() {
        return metrics;
    }
}
