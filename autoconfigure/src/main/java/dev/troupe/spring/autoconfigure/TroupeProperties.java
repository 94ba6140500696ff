package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.actor.MailboxSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Configuration of the Troupe actor system, under {@code troupe.*}.
 *
 * <p>What belongs to the properties alone is checked after binding ({@link #problems()});
 * the runtime's settings builders check the rest, once. Either way startup fails with Boot's
 * failure report naming the property. The remote
 * transport binds its own {@code troupe.remote.*} class beside this one.
 */
@ConfigurationProperties("troupe")
public class TroupeProperties implements Validator {

    /**
     * Whether to start an actor system in the application context.
     */
    private boolean enabled = true;

    /**
     * Name of the actor system: letters, digits, '-' and '_'. Appears in actor paths and
     * as the 'system' tag of every meter.
     */
    private String systemName = "troupe";

    /**
     * Whether the system's threads are daemon threads.
     */
    private boolean daemonThreads = false;

    /**
     * Whether startup fails on a troupe.* key that no Troupe property binds, such as the typo
     * troupe.remote.port (for troupe.remote.bind-port). Keys from environment variables are not
     * checked.
     */
    private boolean failOnUnknownProperties = true;

    /**
     * Dispatcher that runs actors unless their props name another one.
     */
    private final Dispatcher defaultDispatcher = new Dispatcher();

    /**
     * Further named dispatchers, by name, for actors that ask for them.
     */
    private final Map<String, Dispatcher> dispatchers = new LinkedHashMap<>();

    /**
     * Mailbox that actors get unless their props say otherwise.
     */
    private final Mailbox defaultMailbox = new Mailbox();

    private final Timer timer = new Timer();

    private final DeadLetters deadLetters = new DeadLetters();

    private final Shutdown shutdown = new Shutdown();

    private final Metrics metrics = new Metrics();

    private final Logging logging = new Logging();

    private final Observations observations = new Observations();

    private final Health health = new Health();

    private final Endpoint endpoint = new Endpoint();

    private final Web web = new Web();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getSystemName() {
        return systemName;
    }

    public void setSystemName(String systemName) {
        this.systemName = systemName;
    }

    public boolean isDaemonThreads() {
        return daemonThreads;
    }

    public void setDaemonThreads(boolean daemonThreads) {
        this.daemonThreads = daemonThreads;
    }

    public boolean isFailOnUnknownProperties() {
        return failOnUnknownProperties;
    }

    public void setFailOnUnknownProperties(boolean failOnUnknownProperties) {
        this.failOnUnknownProperties = failOnUnknownProperties;
    }

    public Dispatcher getDefaultDispatcher() {
        return defaultDispatcher;
    }

    public Map<String, Dispatcher> getDispatchers() {
        return dispatchers;
    }

    public Mailbox getDefaultMailbox() {
        return defaultMailbox;
    }

    public Timer getTimer() {
        return timer;
    }

    public DeadLetters getDeadLetters() {
        return deadLetters;
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public Logging getLogging() {
        return logging;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Observations getObservations() {
        return observations;
    }

    public Health getHealth() {
        return health;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public Web getWeb() {
        return web;
    }

    /**
     * Builds the runtime settings these properties describe.
     *
     * @return a builder the customizers may change further
     */
    public ActorSystemSettings.Builder toSettingsBuilder() {
        // The settings validate every value and refuse a bad one with an InvalidSettingException
        // naming the setting, which the failure report maps back to its troupe.* property.
        final ActorSystemSettings.Builder builder = ActorSystemSettings.builder()
            .defaultDispatcher(defaultDispatcher.toSettings(DispatcherSettings.DEFAULT_NAME))
            .defaultMailbox(defaultMailbox.toSettings())
            .timerWheel(timer.tick, timer.ticksPerWheel)
            .deadLetters(deadLetters.sampleSize, deadLetters.logLimit, deadLetters.logInterval)
            .daemonThreads(daemonThreads)
            .allocationAttribution(metrics.allocationAttribution)
            .mdcEveryTurn(logging.mdcEveryTurn);
        for (Map.Entry<String, Dispatcher> e : dispatchers.entrySet()) {
            builder.dispatcher(e.getValue().toSettings(e.getKey()));
        }
        return builder;
    }

    @Override
    public boolean supports(Class<?> type) {
        return TroupeProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks every value after binding; each problem names its full property, so startup
     * fails with a message saying which property to fix.
     */
    @Override
    public void validate(Object target, Errors errors) {
        for (String problem : ((TroupeProperties) target).problems()) {
            errors.reject("troupe.invalid", problem);
        }
    }

    /**
     * Checks what belongs to the properties alone: values the runtime's settings builders check
     * themselves (threads, mailbox sizes, the timer wheel, ...) are refused there, once, with an
     * {@code InvalidSettingException} that the failure report maps back to its property.
     *
     * @return one message per invalid value, each naming its property; empty when all are valid
     */
    public List<String> problems() {
        final List<String> p = new ArrayList<>();
        for (String name : dispatchers.keySet()) {
            if (DispatcherSettings.DEFAULT_NAME.equals(name) || "pinned".equals(name)) {
                p.add("troupe.dispatchers." + name + ": the dispatcher name '" + name + "' is reserved; use troupe.default-dispatcher or another name");
            }
        }
        if (shutdown.timeout == null || shutdown.timeout.isNegative()) {
            p.add("troupe.shutdown.timeout must not be negative, was " + shutdown.timeout);
        }
        positive(metrics.refreshInterval, "troupe.metrics.refresh-interval", p);
        if (health.mailboxBacklogThreshold < 0) {
            p.add("troupe.health.mailbox-backlog-threshold must not be negative, was " + health.mailboxBacklogThreshold);
        }
        if (health.mailboxBacklogRecovery != null && health.mailboxBacklogRecovery < 0) {
            p.add("troupe.health.mailbox-backlog-recovery must not be negative, was " + health.mailboxBacklogRecovery);
        } else if (health.mailboxBacklogThreshold > 0 && health.effectiveRecoveryUnchecked() >= health.mailboxBacklogThreshold) {
            p.add("troupe.health.mailbox-backlog-recovery (" + health.effectiveRecoveryUnchecked()
                + ") must be below troupe.health.mailbox-backlog-threshold (" + health.mailboxBacklogThreshold + ")");
        }
        positive(health.stallTimeout, "troupe.health.stall-timeout", p);
        if (health.internalErrorWindow == null || health.internalErrorWindow.isNegative()) {
            p.add("troupe.health.internal-error-window must not be negative, was " + health.internalErrorWindow);
        }
        positive(endpoint.largestMailboxes, "troupe.endpoint.largest-mailboxes", p);
        positive(endpoint.maxPageSize, "troupe.endpoint.max-page-size", p);
        return p;
    }

    static void positive(Duration value, String property, List<String> problems) {
        if (value == null || value.isNegative() || value.isZero()) {
            problems.add(property + " must be a positive duration, was " + value);
        }
    }

    static void positive(long value, String property, List<String> problems) {
        if (value <= 0) {
            problems.add(property + " must be positive, was " + value);
        }
    }

    /** A pool of threads that runs actors. */
    public static class Dispatcher {

        /**
         * Kind of threads: platform (a fixed pool) or virtual (a virtual thread per turn, for actors that block; Java 21+).
         */
        private DispatcherSettings.Type type = DispatcherSettings.Type.PLATFORM;

        /**
         * Number of threads; for a virtual dispatcher, the most turns in progress at once. Defaults to the number of available processors.
         */
        private Integer threads;

        /**
         * Most messages one actor processes per turn before the thread moves on to the next actor.
         */
        private int throughput = 64;

        /**
         * Empty polls an idle thread spins before it starts yielding. Only one thread of a
         * dispatcher spins at a time; the others park at once.
         */
        private int idleSpins = 200;

        /**
         * Empty polls the spinning thread yields before it parks.
         */
        private int idleYields = 20;

        /**
         * Longest a parked idle thread sleeps before polling again; new work wakes it at once.
         */
        private Duration maxPark = Duration.ofMillis(50);

        public DispatcherSettings.Type getType() {
            return type;
        }

        public void setType(DispatcherSettings.Type type) {
            this.type = type;
        }

        public Integer getThreads() {
            return threads;
        }

        public void setThreads(Integer threads) {
            this.threads = threads;
        }

        public int getThroughput() {
            return throughput;
        }

        public void setThroughput(int throughput) {
            this.throughput = throughput;
        }

        public int getIdleSpins() {
            return idleSpins;
        }

        public void setIdleSpins(int idleSpins) {
            this.idleSpins = idleSpins;
        }

        public int getIdleYields() {
            return idleYields;
        }

        public void setIdleYields(int idleYields) {
            this.idleYields = idleYields;
        }

        public Duration getMaxPark() {
            return maxPark;
        }

        public void setMaxPark(Duration maxPark) {
            this.maxPark = maxPark;
        }

        DispatcherSettings toSettings(String name) {
            final int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
            return new DispatcherSettings(name, n, throughput, idleSpins, idleYields, maxPark, type);
        }
    }

    /** The kind of mailbox an actor gets. */
    public static class Mailbox {

        /**
         * Most messages waiting in a mailbox; 0 for unbounded. Overflow goes to dead letters
         * with reason 'mailbox-full'.
         */
        private int capacity = 0;

        /**
         * Size of a mailbox's first ring, made with its first message; it doubles when a
         * backlog fills it and shrinks back once the backlog has drained.
         */
        private int initialCapacity = 16;

        public int getCapacity() {
            return capacity;
        }

        public void setCapacity(int capacity) {
            this.capacity = capacity;
        }

        public int getInitialCapacity() {
            return initialCapacity;
        }

        public void setInitialCapacity(int initialCapacity) {
            this.initialCapacity = initialCapacity;
        }

        MailboxSettings toSettings() {
            return new MailboxSettings(capacity, initialCapacity);
        }
    }

    /** The timer wheel behind timers and receive timeouts. */
    public static class Timer {

        /**
         * Resolution of timers and receive timeouts.
         */
        private Duration tick = Duration.ofMillis(1);

        /**
         * Slots of the timer wheel, a power of two.
         */
        private int ticksPerWheel = 512;

        public Duration getTick() {
            return tick;
        }

        public void setTick(Duration tick) {
            this.tick = tick;
        }

        public int getTicksPerWheel() {
            return ticksPerWheel;
        }

        public void setTicksPerWheel(int ticksPerWheel) {
            this.ticksPerWheel = ticksPerWheel;
        }
    }

    /** Reporting of undeliverable messages. */
    public static class DeadLetters {

        /**
         * Recent dead letters kept for the 'troupe' endpoint.
         */
        private int sampleSize = 64;

        /**
         * Dead letters logged per log interval; 0 logs none.
         */
        private int logLimit = 10;

        /**
         * Interval over which the dead-letter log limit applies.
         */
        private Duration logInterval = Duration.ofSeconds(10);

        public int getSampleSize() {
            return sampleSize;
        }

        public void setSampleSize(int sampleSize) {
            this.sampleSize = sampleSize;
        }

        public int getLogLimit() {
            return logLimit;
        }

        public void setLogLimit(int logLimit) {
            this.logLimit = logLimit;
        }

        public Duration getLogInterval() {
            return logInterval;
        }

        public void setLogInterval(Duration logInterval) {
            this.logInterval = logInterval;
        }
    }

    /** Graceful shutdown with the application context. */
    public static class Shutdown {

        /**
         * Longest the mailboxes may drain when the context closes before the system
         * terminates; keep it below spring.lifecycle.timeout-per-shutdown-phase.
         */
        private Duration timeout = Duration.ofSeconds(10);

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** The actors' logging context. */
    public static class Logging {

        /**
         * Whether every turn of an actor puts troupePath and troupeSystem in the MDC, so that
         * loggers the actor reaches without logging itself (a service it calls) see them too.
         * Costs two MDC writes per turn. By default an actor's own logger (ctx.log()) puts them
         * at its first enabled call of a turn, for the rest of that turn, and an actor that does
         * not log pays nothing.
         */
        private boolean mdcEveryTurn = false;

        public boolean isMdcEveryTurn() {
            return mdcEveryTurn;
        }

        public void setMdcEveryTurn(boolean mdcEveryTurn) {
            this.mdcEveryTurn = mdcEveryTurn;
        }
    }

    /** Micrometer observations and tracing of messages and asks. */
    public static class Observations {

        /**
         * Whether to observe tells (troupe.message.send and troupe.message.process), asks
         * (troupe.ask) and remote hops with the application's ObservationRegistry, so that
         * Micrometer Tracing follows a request through actors and across nodes. Off by default:
         * then nothing is observed and nothing is allocated per message.
         */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Micrometer meters. */
    public static class Metrics {

        /**
         * Whether to bind the troupe.* meters to the meter registries.
         */
        private boolean enabled = true;

        /**
         * Whether actors spawned with per-actor metrics (bean actors and
         * Props.withMetrics() actors) get meters tagged with their name.
         */
        private boolean actorMeters = true;

        /**
         * How often per-actor meters are added for new tracked actors and removed for
         * stopped ones.
         */
        private Duration refreshInterval = Duration.ofSeconds(5);

        /**
         * Whether to record sampled processing times into the troupe.processing.sampled timer
         * (count, total and max per dispatcher). Its percentile histogram is off, as for every
         * Micrometer timer, unless
         * management.metrics.distribution.percentiles-histogram.troupe.processing.sampled=true.
         */
        private boolean histogram = true;

        /**
         * Whether the sampled turns (one in 256 per actor) read their thread's allocated
         * bytes and attribute them to the behavior and message type: the
         * troupe.allocation.bytes and troupe.allocation.messages meters and the
         * /actuator/troupe/allocation endpoint. Costs two thread-counter reads per sampled turn
         * and nothing per message.
         */
        private boolean allocationAttribution = true;

        public boolean isAllocationAttribution() {
            return allocationAttribution;
        }

        public void setAllocationAttribution(boolean allocationAttribution) {
            this.allocationAttribution = allocationAttribution;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isActorMeters() {
            return actorMeters;
        }

        public void setActorMeters(boolean actorMeters) {
            this.actorMeters = actorMeters;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }

        public boolean isHistogram() {
            return histogram;
        }

        public void setHistogram(boolean histogram) {
            this.histogram = histogram;
        }
    }

    /** The 'troupe' health indicator. */
    public static class Health {

        /**
         * Messages waiting in all mailboxes together at which the indicator reports
         * OUT_OF_SERVICE; 0 turns the check off.
         */
        private long mailboxBacklogThreshold = 0;

        /**
         * Backlog at or below which an OUT_OF_SERVICE indicator reports UP again.
         * Defaults to half the threshold, so the status does not flap around one value.
         */
        private Long mailboxBacklogRecovery;

        /**
         * How long a dispatcher may have actors waiting without finishing a single turn
         * before the indicator reports it stalled (DOWN).
         */
        private Duration stallTimeout = Duration.ofSeconds(10);

        /**
         * How long the troupeRemote indicator reports DOWN after it saw a connection to or from
         * another node fail with an internal error (frames rejected as internal-error); 0 turns
         * the check off.
         */
        private Duration internalErrorWindow = Duration.ofMinutes(1);

        /**
         * Whether the Troupe indicators (troupe, troupeRemote, troupeCluster) are part of the
         * 'readiness' health group.
         */
        private boolean readiness = true;

        public long getMailboxBacklogThreshold() {
            return mailboxBacklogThreshold;
        }

        public void setMailboxBacklogThreshold(long mailboxBacklogThreshold) {
            this.mailboxBacklogThreshold = mailboxBacklogThreshold;
        }

        public Long getMailboxBacklogRecovery() {
            return mailboxBacklogRecovery;
        }

        public void setMailboxBacklogRecovery(Long mailboxBacklogRecovery) {
            this.mailboxBacklogRecovery = mailboxBacklogRecovery;
        }

        /** @return the backlog at which the indicator reports UP again: the recovery value, or half the threshold */
        public long effectiveRecovery() {
            return effectiveRecoveryUnchecked();
        }

        long effectiveRecoveryUnchecked() {
            return mailboxBacklogRecovery != null ? mailboxBacklogRecovery : mailboxBacklogThreshold / 2;
        }

        public Duration getStallTimeout() {
            return stallTimeout;
        }

        public void setStallTimeout(Duration stallTimeout) {
            this.stallTimeout = stallTimeout;
        }

        public Duration getInternalErrorWindow() {
            return internalErrorWindow;
        }

        public void setInternalErrorWindow(Duration internalErrorWindow) {
            this.internalErrorWindow = internalErrorWindow;
        }

        public boolean isReadiness() {
            return readiness;
        }

        public void setReadiness(boolean readiness) {
            this.readiness = readiness;
        }
    }

    /** The 'troupe' Actuator endpoint. */
    public static class Endpoint {

        /**
         * How many of the largest mailboxes the endpoint lists.
         */
        private int largestMailboxes = 10;

        /**
         * Most actors one page of the actor tree holds.
         */
        private int maxPageSize = 500;

        public int getLargestMailboxes() {
            return largestMailboxes;
        }

        public void setLargestMailboxes(int largestMailboxes) {
            this.largestMailboxes = largestMailboxes;
        }

        public int getMaxPageSize() {
            return maxPageSize;
        }

        public void setMaxPageSize(int maxPageSize) {
            this.maxPageSize = maxPageSize;
        }
    }

    /** Spring MVC and WebFlux applications. */
    public static class Web {

        private final ProblemDetails problemDetails = new ProblemDetails();

        public ProblemDetails getProblemDetails() {
            return problemDetails;
        }
    }

    /** Problem details (RFC 9457) for failed asks. */
    public static class ProblemDetails {

        /**
         * Whether a controller's ask that times out answers 504 (503 when the actor's node is
         * unreachable) with a problem detail naming the actor and the timeout, instead of a 500
         * logged as an error. On unless set to false, whatever spring.mvc.problemdetails.enabled
         * says.
         */
        private Boolean enabled = true;

        public Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }
    }
}
