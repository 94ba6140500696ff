package dev.troupe.spring;

import dev.troupe.actor.ActorSystem;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Ties an {@link ActorSystem} to the application context.
 *
 * <p>The system's threads start when its bean is created, so actor beans can be spawned
 * and injected during refresh; {@link #start()} marks it running with the context. On
 * close, {@link #stop(Runnable)} shuts it down gracefully: messages told from outside the
 * actors become dead letters with reason {@code shutdown}, mailboxes drain for up to the
 * drain timeout, then every actor stops and whatever is still queued becomes a dead letter
 * with reason {@code shutdown}. Nothing is dropped silently.
 *
 * <p>Its phase is below the web server's graceful-shutdown phase, so on close the server
 * stops taking requests (and finishes those in flight, which may still ask actors) before
 * the actors drain.
 */
public class ActorSystemLifecycle implements SmartLifecycle {

    /**
     * Stops after the web server ({@code DEFAULT_PHASE - 1024} and {@code - 2048}) and before beans that start earlier.
     *
     * <p>The node's lifecycles are phased around this one, and Spring stops higher phases first:
     * {@code ClusterLifecycle} ({@code PHASE + 1}) leaves the cluster, then this one drains and stops
     * the actors, then {@code RemoteTransportLifecycle} ({@code PHASE - 1}) flushes and closes the
     * transport; they start in the opposite order. Each keeps its own small lifecycle class because
     * they live in three packages and differ in every method but the running flag.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final ActorSystem system;
    private final Duration drainTimeout;
    private volatile boolean running;

    /**
     * @param system the system
     * @param drainTimeout how long mailboxes may drain on shutdown
     */
    public ActorSystemLifecycle(ActorSystem system, Duration drainTimeout) {
        this.system = system;
        this.drainTimeout = drainTimeout;
    }

    @Override
    public void start() {
        if (system.isShuttingDown()) {
            throw new IllegalStateException("actor system '" + system.name() + "' is already shutting down");
        }
        running = true;
    }

    @Override
    public void stop(Runnable callback) {
        running = false;
        system.shutdown(drainTimeout).whenComplete((ignored, failure) -> callback.run());
    }

    @Override
    public void stop() {
        running = false;
        try {
            // The drain itself is bounded by drainTimeout; the rest is stopping the actors.
            system.shutdown(drainTimeout).toCompletableFuture().get(drainTimeout.toMillis() + 10_000L, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            System.getLogger(ActorSystemLifecycle.class.getName()).log(System.Logger.Level.WARNING,
                "actor system '" + system.name() + "' did not terminate in time", e);
        }
    }

    @Override
    public boolean isRunning() {
        return running && !system.isTerminated();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** @return the system this lifecycle manages */
    public ActorSystem system() {
        return system;
    }
}
