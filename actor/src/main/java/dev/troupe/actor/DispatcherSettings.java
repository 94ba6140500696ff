package dev.troupe.actor;

import java.time.Duration;

/**
 * Threads that run actors, of one of two {@link Type types}.
 *
 * <p><b>{@code platform}</b> (the default): a fixed pool of {@code threads} platform threads.
 * Each thread takes a scheduled actor, processes up to {@link #throughput()} of its messages,
 * and puts it back at the end of the queue if more remain, so one busy actor cannot starve the
 * others beyond that quantum. An idle thread spins, then yields, then parks until work arrives.
 * Its turns allocate nothing. For actors that compute, never for actors that block.
 *
 * <p><b>{@code virtual}</b> (Java 21 or newer): each turn runs on a virtual thread of its own,
 * so an actor that blocks (a JDBC call, a blocking HTTP client) holds no platform thread while it
 * waits. {@code threads} bounds the turns in progress at once, running or blocked (a turn that
 * blocks keeps its slot): scheduled actors beyond it wait, in order, for a turn to end, so the
 * bound protects what the actors block on (a connection pool). A turn still processes up to
 * {@code throughput} messages of one actor, one at a time; each turn allocates its virtual
 * thread. {@code idleSpins}, {@code idleYields} and {@code maxPark} do not apply.
 *
 * @param name the dispatcher's name, used by {@link Props#withDispatcher(String)} and in thread names and meters
 * @param threads the number of threads; for a virtual dispatcher, the most turns in progress at once
 * @param throughput the most messages one actor processes per turn
 * @param idleSpins how many empty polls spin before yielding (platform; only one thread of the dispatcher spins at a time, the others park at once)
 * @param idleYields how many empty polls of the spinning thread yield before it parks (platform)
 * @param maxPark the longest a parked thread sleeps before polling again, new work unparks it at once (platform)
 * @param type platform or virtual threads
 */
public record DispatcherSettings(String name, int threads, int throughput, int idleSpins, int idleYields, Duration maxPark, Type type) {

    /** The name of the dispatcher every actor uses unless its props say otherwise. */
    public static final String DEFAULT_NAME = "default";

    /** The default bound of a virtual dispatcher: turns in progress at once. */
    public static final int DEFAULT_VIRTUAL_TURNS = 256;

    /** What kind of threads a dispatcher runs actors on. */
    public enum Type {
        /** A fixed pool of platform threads; turns allocate nothing. */
        PLATFORM,
        /** A virtual thread per turn, for actors that block; Java 21 or newer. */
        VIRTUAL
    }

    /**
     * Validates the settings.
     *
     * @throws InvalidSettingException naming the component refused (such as
     *         {@code DispatcherSettings.threads}) and the dispatcher; {@code DispatcherSettings.type}
     *         for a virtual dispatcher on a JVM older than Java 21
     */
    public DispatcherSettings {
        if (name == null || name.isEmpty()) {
            throw new InvalidSettingException("DispatcherSettings.name", "must not be empty");
        }
        if (type == null) {
            throw new InvalidSettingException("DispatcherSettings.type", name, "must be platform or virtual, was null");
        }
        if (type == Type.VIRTUAL && Runtime.version().feature() < 21) {
            throw new InvalidSettingException("DispatcherSettings.type", name, "virtual threads need Java 21 or newer; this JVM is Java "
                + Runtime.version().feature() + " (" + System.getProperty("java.vm.name") + " " + Runtime.version()
                + "): use type platform, or run on Java 21+");
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
     * A platform dispatcher.
     *
     * @param name the dispatcher's name
     * @param threads the number of threads
     * @param throughput the most messages one actor processes per turn
     * @param idleSpins how many empty polls spin before yielding
     * @param idleYields how many empty polls yield before parking
     * @param maxPark the longest a parked thread sleeps before polling again
     */
    public DispatcherSettings(String name, int threads, int throughput, int idleSpins, int idleYields, Duration maxPark) {
        this(name, threads, throughput, idleSpins, idleYields, maxPark, Type.PLATFORM);
    }

    /**
     * @param name the dispatcher's name
     * @return a platform dispatcher with one thread per processor and the default quantum and idle strategy
     */
    public static DispatcherSettings of(String name) {
        return new DispatcherSettings(name, Runtime.getRuntime().availableProcessors(), 64, 200, 20, Duration.ofMillis(50));
    }

    /**
     * @param name the dispatcher's name
     * @return a virtual dispatcher with at most {@value #DEFAULT_VIRTUAL_TURNS} turns in progress at once
     * @throws InvalidSettingException naming {@code DispatcherSettings.type} on a JVM older than Java 21
     */
    public static DispatcherSettings virtual(String name) {
        return of(name).withThreads(DEFAULT_VIRTUAL_TURNS).withType(Type.VIRTUAL);
    }

    /**
     * @param threads the number of threads; for a virtual dispatcher, the most turns in progress at once
     * @return a copy with that many threads
     */
    public DispatcherSettings withThreads(int threads) {
        return new DispatcherSettings(name, threads, throughput, idleSpins, idleYields, maxPark, type);
    }

    /**
     * @param throughput messages per actor per turn
     * @return a copy with that quantum
     */
    public DispatcherSettings withThroughput(int throughput) {
        return new DispatcherSettings(name, threads, throughput, idleSpins, idleYields, maxPark, type);
    }

    /**
     * @param spins empty polls that spin
     * @param yields empty polls that yield
     * @param maxPark the longest park
     * @return a copy with that idle strategy
     */
    public DispatcherSettings withIdleStrategy(int spins, int yields, Duration maxPark) {
        return new DispatcherSettings(name, threads, throughput, spins, yields, maxPark, type);
    }

    /**
     * @param type platform or virtual threads
     * @return a copy of that type
     * @throws InvalidSettingException naming {@code DispatcherSettings.type} for virtual on a JVM older than Java 21
     */
    public DispatcherSettings withType(Type type) {
        return new DispatcherSettings(name, threads, throughput, idleSpins, idleYields, maxPark, type);
    }

    /**
     * @param name another name
     * @return a copy under that name
     */
    public DispatcherSettings withName(String name) {
        return new DispatcherSettings(name, threads, throughput, idleSpins, idleYields, maxPark, type);
    }
}
