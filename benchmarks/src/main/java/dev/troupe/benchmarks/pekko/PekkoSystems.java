package dev.troupe.benchmarks.pekko;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** Creates and terminates the Pekko systems of the benchmarks. */
public final class PekkoSystems {

    /** Pekko as a user gets it: {@code reference.conf} only, the default dispatcher (throughput 5). */
    public static final String DEFAULT = "default";

    /**
     * The one tuning a user would try first: the default dispatcher's throughput raised from 5
     * to 64, Troupe's default quantum. Reported separately, labelled.
     */
    public static final String THROUGHPUT_64 = "throughput64";

    private PekkoSystems() {
    }

    /**
     * Starts a system whose guardian spawns the benchmark's actors, as an application's
     * guardian spawns its top-level actors, and waits until it has.
     *
     * @param name the system's name
     * @param tuning {@link #DEFAULT} or {@link #THROUGHPUT_64}
     * @param spawner spawns the actors (children of the guardian, on the default dispatcher)
     * @return the started system
     */
    public static ActorSystem<Void> create(String name, String tuning, Consumer<ActorContext<Void>> spawner) {
        CountDownLatch spawned = new CountDownLatch(1);
        ActorSystem<Void> system = ActorSystem.create(Behaviors.setup(ctx -> {
            spawner.accept(ctx);
            spawned.countDown();
            return Behaviors.empty();
        }), name, config(tuning));
        try {
            if (!spawned.await(30, TimeUnit.SECONDS)) {
                terminate(system);
                throw new IllegalStateException("Pekko guardian did not spawn the actors within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting Pekko", e);
        }
        return system;
    }

    private static Config config(String tuning) {
        Config base = ConfigFactory.load();
        switch (tuning) {
            case DEFAULT:
                return base;
            case THROUGHPUT_64:
                return ConfigFactory.parseString("pekko.actor.default-dispatcher.throughput = 64").withFallback(base);
            default:
                throw new IllegalArgumentException("unknown Pekko tuning '" + tuning + "', expected "
                        + DEFAULT + " or " + THROUGHPUT_64);
        }
    }

    /**
     * Terminates the system and waits up to 30 seconds for it.
     *
     * @param system the system
     */
    public static void terminate(ActorSystem<?> system) {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Pekko system " + system.name() + " did not terminate", e);
        }
    }
}
