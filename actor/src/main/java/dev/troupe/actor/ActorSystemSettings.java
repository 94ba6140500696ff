package dev.troupe.actor;

import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How an {@link ActorSystem} is set up: its dispatchers, default mailbox, timer wheel and
 * dead-letter reporting. Immutable; build with {@link #builder()}.
 */
public final class ActorSystemSettings {

    private final DispatcherSettings defaultDispatcher;
    private final Map<String, DispatcherSettings> dispatchers;
    private final MailboxSettings defaultMailbox;
    private final Duration timerTick;
    private final int timerTicksPerWheel;
    private final int deadLetterSampleSize;
    private final int deadLetterLogLimit;
    private final Duration deadLetterLogInterval;
    private final boolean daemonThreads;
    private final MessageInstrumentation instrumentation;
    private final boolean allocationAttribution;
    private final boolean mdcEveryTurn;

    private ActorSystemSettings(Builder b) {
        this.defaultDispatcher = b.defaultDispatcher;
        this.dispatchers = Collections.unmodifiableMap(new LinkedHashMap<>(b.dispatchers));
        this.defaultMailbox = b.defaultMailbox;
        this.timerTick = b.timerTick;
        this.timerTicksPerWheel = b.timerTicksPerWheel;
        this.deadLetterSampleSize = b.deadLetterSampleSize;
        this.deadLetterLogLimit = b.deadLetterLogLimit;
        this.deadLetterLogInterval = b.deadLetterLogInterval;
        this.daemonThreads = b.daemonThreads;
        this.instrumentation = b.instrumentation;
        this.allocationAttribution = b.allocationAttribution;
        this.mdcEveryTurn = b.mdcEveryTurn;
    }

    /** @return the message instrumentation (tracing, observations), or null for none */
    public MessageInstrumentation instrumentation() {
        return instrumentation;
    }

    /** @return the defaults */
    public static ActorSystemSettings defaults() {
        return builder().build();
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the dispatcher actors use unless their props say otherwise */
    public DispatcherSettings defaultDispatcher() {
        return defaultDispatcher;
    }

    /** @return the other named dispatchers, by name */
    public Map<String, DispatcherSettings> dispatchers() {
        return dispatchers;
    }

    /** @return the mailbox actors get unless their props say otherwise */
    public MailboxSettings defaultMailbox() {
        return defaultMailbox;
    }

    /** @return the timer wheel's tick, the resolution of timers and receive timeouts */
    public Duration timerTick() {
        return timerTick;
    }

    /** @return the number of slots of the timer wheel */
    public int timerTicksPerWheel() {
        return timerTicksPerWheel;
    }

    /** @return how many recent dead letters are kept for inspection */
    public int deadLetterSampleSize() {
        return deadLetterSampleSize;
    }

    /** @return how many dead letters are logged per interval; 0 logs none */
    public int deadLetterLogLimit() {
        return deadLetterLogLimit;
    }

    /** @return the dead-letter logging interval */
    public Duration deadLetterLogInterval() {
        return deadLetterLogInterval;
    }

    /** @return whether the system's threads are daemon threads */
    public boolean daemonThreads() {
        return daemonThreads;
    }

    /**
     * @return whether the sampled turns of platform dispatchers also read their thread's allocated
     *         bytes and attribute them to the behavior and message type
     *         ({@link dev.troupe.actor.metrics.AllocationMetrics}); on by default
     */
    public boolean allocationAttribution() {
        return allocationAttribution;
    }

    /**
     * @return whether every turn puts the actor's MDC entries ({@code troupePath},
     *         {@code troupeSystem}) for every logger on its thread; by default (false) the actor's
     *         own logger puts them at its first enabled call of a turn, so an actor that does not
     *         log pays nothing for them
     */
    public boolean mdcEveryTurn() {
        return mdcEveryTurn;
    }

    /** @return every dispatcher, the default first */
    public List<DispatcherSettings> allDispatchers() {
        final List<DispatcherSettings> all = new ArrayList<>();
        all.add(defaultDispatcher);
        all.addAll(dispatchers.values());
        return all;
    }

    /** Builds {@link ActorSystemSettings}. */
    public static final class Builder {
        private DispatcherSettings defaultDispatcher = DispatcherSettings.of(DispatcherSettings.DEFAULT_NAME);
        private final Map<String, DispatcherSettings> dispatchers = new LinkedHashMap<>();
        private MailboxSettings defaultMailbox = MailboxSettings.unbounded();
        private Duration timerTick = Duration.ofMillis(1);
        private int timerTicksPerWheel = 512;
        private int deadLetterSampleSize = 64;
        private int deadLetterLogLimit = 10;
        private Duration deadLetterLogInterval = Duration.ofSeconds(10);
        private boolean daemonThreads = false;
        private MessageInstrumentation instrumentation;
        private boolean allocationAttribution = true;
        private boolean mdcEveryTurn = false;

        private Builder() {
        }

        /**
         * @param enabled whether sampled turns (one in 256 per actor) read the thread's allocated
         *        bytes before and after and attribute the difference to the behavior and message
         *        type; costs two reads of a thread counter per sampled turn, nothing per message
         * @return this builder
         */
        public Builder allocationAttribution(boolean enabled) {
            this.allocationAttribution = enabled;
            return this;
        }

        /**
         * @param everyTurn whether every turn puts the actor's MDC entries ({@code troupePath},
         *        {@code troupeSystem}), so that loggers an actor reaches without logging itself see
         *        them too; costs two MDC writes per turn (thread-local lookups in Logback). By
         *        default (false) the actor's own logger puts them before its first enabled call of
         *        a turn and the turn removes them when it ends: an actor that does not log pays
         *        nothing
         * @return this builder
         */
        public Builder mdcEveryTurn(boolean everyTurn) {
            this.mdcEveryTurn = everyTurn;
            return this;
        }

        /**
         * @param settings the default dispatcher; its name is forced to {@code default}
         * @return this builder
         * @throws InvalidSettingException if null
         */
        public Builder defaultDispatcher(DispatcherSettings settings) {
            final DispatcherSettings s = notNull(settings, "ActorSystemSettings.Builder.defaultDispatcher");
            this.defaultDispatcher = s.withName(DispatcherSettings.DEFAULT_NAME);
            return this;
        }

        /**
         * @param settings a named dispatcher
         * @return this builder
         * @throws InvalidSettingException if null
         */
        public Builder dispatcher(DispatcherSettings settings) {
            notNull(settings, "ActorSystemSettings.Builder.dispatcher");
            if (DispatcherSettings.DEFAULT_NAME.equals(settings.name())) {
                return defaultDispatcher(settings);
            }
            dispatchers.put(settings.name(), settings);
            return this;
        }

        /**
         * @param settings the default mailbox
         * @return this builder
         * @throws InvalidSettingException if null
         */
        public Builder defaultMailbox(MailboxSettings settings) {
            this.defaultMailbox = notNull(settings, "ActorSystemSettings.Builder.defaultMailbox");
            return this;
        }

        /**
         * @param tick the timer resolution, positive, rounded up to a power of two nanoseconds
         * @return this builder
         * @throws InvalidSettingException if not positive
         */
        public Builder timerTick(Duration tick) {
            notNull(tick, "ActorSystemSettings.Builder.timerTick");
            if (tick.isNegative() || tick.isZero()) {
                throw new InvalidSettingException("ActorSystemSettings.Builder.timerTick", "must be positive, was " + tick);
            }
            this.timerTick = tick;
            return this;
        }

        /**
         * @param ticksPerWheel the slots of the timer wheel, a power of two
         * @return this builder
         * @throws InvalidSettingException if not a power of two
         */
        public Builder timerTicksPerWheel(int ticksPerWheel) {
            if (ticksPerWheel <= 0 || Integer.bitCount(ticksPerWheel) != 1) {
                throw new InvalidSettingException("ActorSystemSettings.Builder.timerTicksPerWheel",
                    "must be a power of two, was " + ticksPerWheel);
            }
            this.timerTicksPerWheel = ticksPerWheel;
            return this;
        }

        /**
         * Same as {@code timerTick(tick).timerTicksPerWheel(ticksPerWheel)}.
         *
         * @param tick the timer resolution, rounded up to a power of two nanoseconds
         * @param ticksPerWheel the slots of the wheel, a power of two
         * @return this builder
         * @throws InvalidSettingException naming {@code timerTick} or {@code timerTicksPerWheel}
         */
        public Builder timerWheel(Duration tick, int ticksPerWheel) {
            return timerTick(tick).timerTicksPerWheel(ticksPerWheel);
        }

        /**
         * @param sampleSize recent dead letters kept for inspection, 0 or more
         * @return this builder
         * @throws InvalidSettingException if negative
         */
        public Builder deadLetterSampleSize(int sampleSize) {
            if (sampleSize < 0) {
                throw new InvalidSettingException("ActorSystemSettings.Builder.deadLetterSampleSize", "must not be negative, was " + sampleSize);
            }
            this.deadLetterSampleSize = sampleSize;
            return this;
        }

        /**
         * @param logLimit dead letters logged per interval, 0 for none
         * @return this builder
         * @throws InvalidSettingException if negative
         */
        public Builder deadLetterLogLimit(int logLimit) {
            if (logLimit < 0) {
                throw new InvalidSettingException("ActorSystemSettings.Builder.deadLetterLogLimit", "must not be negative, was " + logLimit);
            }
            this.deadLetterLogLimit = logLimit;
            return this;
        }

        /**
         * @param logInterval the dead-letter logging interval, positive
         * @return this builder
         * @throws InvalidSettingException if not positive
         */
        public Builder deadLetterLogInterval(Duration logInterval) {
            notNull(logInterval, "ActorSystemSettings.Builder.deadLetterLogInterval");
            if (logInterval.isNegative() || logInterval.isZero()) {
                throw new InvalidSettingException("ActorSystemSettings.Builder.deadLetterLogInterval", "must be positive, was " + logInterval);
            }
            this.deadLetterLogInterval = logInterval;
            return this;
        }

        /**
         * Same as {@code deadLetterSampleSize(sampleSize).deadLetterLogLimit(logLimit).deadLetterLogInterval(logInterval)}.
         *
         * @param sampleSize recent dead letters kept
         * @param logLimit dead letters logged per interval
         * @param logInterval the logging interval
         * @return this builder
         * @throws InvalidSettingException naming the value refused
         */
        public Builder deadLetters(int sampleSize, int logLimit, Duration logInterval) {
            return deadLetterSampleSize(sampleSize).deadLetterLogLimit(logLimit).deadLetterLogInterval(logInterval);
        }

        private static <V> V notNull(V value, String setting) {
            if (value == null) {
                throw new InvalidSettingException(setting, "must not be null");
            }
            return value;
        }

        /**
         * @param daemon whether the system's threads are daemon threads
         * @return this builder
         */
        public Builder daemonThreads(boolean daemon) {
            this.daemonThreads = daemon;
            return this;
        }

        /**
         * Installs hooks the runtime calls around every user message (the Spring Boot starter's
         * observations and tracing use it). Off by default: with none, nothing is called and
         * nothing is allocated per message.
         *
         * @param instrumentation the hooks, or null for none
         * @return this builder
         */
        public Builder instrumentation(MessageInstrumentation instrumentation) {
            this.instrumentation = instrumentation;
            return this;
        }

        /** @return the settings */
        public ActorSystemSettings build() {
            return new ActorSystemSettings(this);
        }
    }
}
