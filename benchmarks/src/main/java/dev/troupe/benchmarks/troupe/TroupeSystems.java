package dev.troupe.benchmarks.troupe;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import java.util.concurrent.TimeUnit;

/** Creates and terminates the Troupe systems of the benchmarks. */
public final class TroupeSystems {

    private TroupeSystems() {
    }

    /**
     * @param name the system's name
     * @return a started system with the default settings: one default dispatcher with a
     *     thread per processor, throughput 64, unbounded mailboxes
     */
    public static ActorSystem create(String name) {
        return ActorSystem.create(name, ActorSystemSettings.defaults());
    }

    /**
     * @param name the system's name
     * @param allocationAttribution whether sampled turns attribute their allocation (on by default)
     * @return a started system with the default settings but for allocation attribution
     */
    public static ActorSystem create(String name, boolean allocationAttribution) {
        return ActorSystem.create(name, ActorSystemSettings.builder().allocationAttribution(allocationAttribution).build());
    }

    /**
     * Terminates the system and waits up to 30 seconds for it.
     *
     * @param system the system
     */
    public static void terminate(ActorSystem system) {
        try {
            system.terminate().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Troupe system " + system.name() + " did not terminate", e);
        }
    }
}
