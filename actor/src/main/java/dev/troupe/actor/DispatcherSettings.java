package dev.troupe.actor;

import java.time.Duration;

/**
 * A pool of threads that run actors. Each thread takes a scheduled actor, processes up to
 * {@link #throughput()} of its messages, and puts it back at the end of the queue if more
 * remain, so one busy actor cannot starve the others beyond that quantum. An idle
 * thread spins, then yields, then parks until work arrives.
 *
 * @param name the dispatcher's name, used by {@link Props#withDispatcher(String)} and in thread names and meters
 * @param threads the number of threads
 * @param throughput the most messages one actor processes per turn
 * @param idleSpins how many empty polls spin before yielding
 * @param idleYields how many empty polls yield before parking
 * @param maxPark the longest a parked thread sleeps before polling again (new work unparks it at once)
 */
public record DispatcherSettings(String name, int threads, int throughput, int idleSpins, int idleYields, Duration maxPark) {

    /** The name of the dispatcher every actor uses unless its props say otherwise. */
    public static final String DEFAULT_NAME = "default";

    /**
     * Validates the settings.
     *
     * @throws InvalidSettingException naming the component refused (such as
     *         {@code DispatcherSettings.threads}) and the dispatcher
     */
    public DispatcherSettings {
        if (name == null || name.isEmpty()) {
            throw new InvalidSettingException("DispatcherSettings.name", "must not be empty");
        }
        if (threads <= 0) {
            throw new InvalidSettingException("DispatcherSettings.threads", name, "must be positive, was " + threads);
        }
        if (throughput <= 0) {
            throw new InvalidSettingException("DispatcherSettings.throughput", name, "must be positive, was " + throughput);
        }
        if (idleSpins < 0) {
            throw new InvalidSettingException("DispatcherSettings.idleSpins", name, "must not be negative, was " + idleSpins);
        }
        if (idleYields < 0) {
            throw new InvalidSettingException("DispatcherSettings.idleYields", name, "must not be negative, was " + idleYields);
        }
        if (maxPark == null || maxPark.isNegative() || maxPark.isZero()) {
            throw new InvalidSettingException("DispatcherSettings.maxPark", name, "must be positive, was " + maxPark);
        }
    }

    /**
     * @param name the dispatcher's name
     * @return a dispatcher with one thread per processor and the default quantum and idle strategy
     */
    public static DispatcherSettings of(String name) {
        return new DispatcherSettings(name, Runtime.getRuntime().availableProcessors(), 64, 200, 20, Duration.ofMillis(50));
    }

    /**
     * @param threads the number of threads
     * @return a copy with that many threads
     */
    public DispatcherSettings withThreads(int threads) {
        return new DispatcherSettings(name, threads, throughput, idleSpins, idleYields, maxPark);
    }

    /**
     * @param throughput messages per actor per turn
     * @return a copy with that quantum
     */
    public DispatcherSettings withThroughput(int throughput) {
        return new DispatcherSettings(name, threads, throughput, idleSpins, idleYields, maxPark);
    }

    /**
     * @param spins empty polls that spin
     * @param yields empty polls that yield
     * @param maxPark the longest park
     * @return a copy with that idle strategy
     */
    public DispatcherSettings withIdleStrategy(int spins, int yields, Duration maxPark) {
        return new DispatcherSettings(name, threads, throughput, spins, yields, maxPark);
    }
}
