package dev.troupe.spring.endpoint;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.DeadLetter;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;
import dev.troupe.actor.metrics.ActorMetrics;
import dev.troupe.actor.metrics.AllocationMetrics;
import dev.troupe.actor.metrics.DispatcherMetrics;
import dev.troupe.actor.metrics.SystemMetrics;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The {@code troupe} Actuator endpoint: what the actor system is doing now.
 *
 * <ul>
 *   <li>{@code GET /actuator/troupe}: the system, its dispatchers and their load, the
 *       largest mailboxes, dead letters by reason.</li>
 *   <li>{@code GET /actuator/troupe/actors?offset=0&limit=100}: one page of the actor tree,
 *       parents before children, at most {@code maxPageSize} actors.</li>
 *   <li>{@code GET /actuator/troupe/mailboxes?limit=10}: the largest mailboxes.</li>
 *   <li>{@code GET /actuator/troupe/dead-letters}: counts by reason and the most recent ones.</li>
 *   <li>{@code GET /actuator/troupe/dispatchers}: each dispatcher's threads and load.</li>
 *   <li>{@code GET /actuator/troupe/allocation?limit=20}: the top allocators by behavior and message
 *       type, from sampled turns, largest first.</li>
 *   <li>{@code GET /actuator/troupe/<name>}: a section added by a {@link TroupeEndpointContributor},
 *       such as {@code remote} (the transport's peers).</li>
 *   <li>{@code GET /actuator/troupe/<name>/<key>} and {@code GET /actuator/troupe/<name>/<key>/<item>}:
 *       a part of a contributed section, such as {@code sharding/<entity type>} (where its shards
 *       and entities are, member by member) and {@code sharding/<entity type>/<entity id>} (where
 *       one entity lives).</li>
 *   <li>{@code POST /actuator/troupe/<name>/<operation>} with {@code {"address": "..."}}: a
 *       section's write operation, such as {@code cluster/down} and {@code cluster/leave}. The
 *       endpoint's default access is read-only: write operations answer only once the
 *       application grants it ({@code management.endpoint.troupe.access=unrestricted}).</li>
 * </ul>
 *
 * <p>Every answer is bounded in size whatever the number of actors; building one walks the
 * actors once.
 */
@Endpoint(id = "troupe", defaultAccess = Access.READ_ONLY)
public class TroupeEndpoint {

    private static final Comparator<MailboxEntry> BY_SIZE = Comparator.comparingInt(MailboxEntry::size);

    private final ActorSystem system;
    private final int largestMailboxes;
    private final int maxPageSize;
    private final List<TroupeEndpointContributor> contributors;

    /**
     * @param system the actor system
     * @param largestMailboxes how many of the largest mailboxes the summary lists
     * @param maxPageSize the most actors one page of the tree holds
     */
    public TroupeEndpoint(ActorSystem system, int largestMailboxes, int maxPageSize) {
        this(system, largestMailboxes, maxPageSize, List.of());
    }

    /**
     * @param system the actor system
     * @param largestMailboxes how many of the largest mailboxes the summary lists
     * @param maxPageSize the most actors one page of the tree holds
     * @param contributors further sections, such as the remote transport's peers
     */
    public TroupeEndpoint(ActorSystem system, int largestMailboxes, int maxPageSize, List<TroupeEndpointContributor> contributors) {
        this.system = system;
        this.largestMailboxes = largestMailboxes;
        this.maxPageSize = maxPageSize;
        this.contributors = List.copyOf(contributors);
    }

    /** @return the system, dispatchers, largest mailboxes and dead letters */
    @ReadOperation
    public TroupeReport report() {
        final SystemMetrics m = system.metrics();
        final Map<String, Object> extra = new LinkedHashMap<>();
        for (TroupeEndpointContributor c : contributors) {
            extra.put(c.name(), c.contribute());
        }
        return new TroupeReport(systemInfo(m), dispatchers(m), largest(m, largestMailboxes), deadLetters(m.deadLetters(), 10), extra);
    }

    /**
     * @param section {@code actors}, {@code mailboxes}, {@code dead-letters}, {@code dispatchers} or {@code allocation}
     * @param offset for {@code actors}: actors to skip, in tree order
     * @param limit for {@code actors}, {@code mailboxes} and {@code allocation}: the most entries to return
     * @return the section, or null (404) for an unknown one
     */
    @ReadOperation
    public @Nullable Object section(@Selector String section, @Nullable Integer offset, @Nullable Integer limit) {
        final SystemMetrics m = system.metrics();
        switch (section) {
            case "actors":
                return actors(m, offset == null ? 0 : Math.max(0, offset), clampLimit(limit, 100));
            case "mailboxes":
                return largest(m, clampLimit(limit, largestMailboxes));
            case "dead-letters":
                return deadLetters(m.deadLetters(), clampLimit(limit, m.deadLetters().sampleCapacity()));
            case "dispatchers":
                return dispatchers(m);
            case "allocation":
                return allocation(m.allocation(), clampLimit(limit, 20));
            default:
                for (TroupeEndpointContributor c : contributors) {
                    if (c.name().equals(section)) {
                        return c.contribute();
                    }
                }
                return null;
        }
    }

    /**
     * @param section a contributed section, such as {@code sharding}
     * @param key a part of it, such as an entity type's name
     * @return the part, or null (404) for an unknown section or part
     */
    @ReadOperation
    public @Nullable Object detail(@Selector String section, @Selector String key) {
        return detailOf(section, key, null);
    }

    /**
     * A part of a part: {@code /actuator/troupe/<section>/<key>/<item>}, where the item is the rest
     * of the path, so an entity id that contains {@code /} (such as {@code tenant-7/order-42}) is
     * asked for as it is. The operation takes the whole path after the endpoint's (the paths of one
     * and two segments go to {@link #section} and {@link #detail}, which are more specific): with a
     * capturing selector before it, WebFlux hands a remaining-path selector the path from the first
     * selector on, Spring MVC from its own.
     *
     * @param path the section (such as {@code sharding}), the key (such as an entity type's name),
     *        then the item's segments (such as an entity id's)
     * @return the part, or null (404) for an unknown section or part
     */
    @ReadOperation
    public @Nullable Object item(@Selector(match = Selector.Match.ALL_REMAINING) String... path) {
        if (path.length < 2) {
            return null;
        }
        return detailOf(path[0], path[1], path.length == 2 ? null : String.join("/", Arrays.asList(path).subList(2, path.length)));
    }

    private @Nullable Object detailOf(String section, String key, @Nullable String item) {
        for (TroupeEndpointContributor c : contributors) {
            if (c.name().equals(section)) {
                return c.detail(key, item);
            }
        }
        return null;
    }

    /**
     * @param section a contributed section, such as {@code cluster}
     * @param operation its operation, such as {@code down}
     * @param address the operation's argument
     * @return the outcome, or null (404) for an unknown section or operation
     */
    @WriteOperation
    public @Nullable Object operate(@Selector String section, @Selector String operation, String address) {
        for (TroupeEndpointContributor c : contributors) {
            if (c.name().equals(section)) {
                return c.operate(operation, address);
            }
        }
        return null;
    }

    private int clampLimit(@Nullable Integer limit, int otherwise) {
        final int l = limit == null ? otherwise : limit;
        return Math.max(0, Math.min(l, maxPageSize));
    }

    private SystemInfo systemInfo(SystemMetrics m) {
        final String state = system.isTerminated() ? "terminated"
            : system.isTerminating() ? "terminating"
            : system.isShuttingDown() ? "draining" : "running";
        return new SystemInfo(system.name(), Long.toHexString(system.uid()), state, system.uptimeNanos() / 1_000_000L,
            m.liveActors(), m.actorsSpawned(), m.actorsStopped(), m.messagesProcessed());
    }

    /** @return each dispatcher's load since the system started */
    static List<DispatcherInfo> dispatchers(SystemMetrics m) {
        final List<DispatcherInfo> out = new ArrayList<>();
        for (DispatcherMetrics d : m.dispatchers()) {
            final long elapsed = d.elapsedNanos();
            final double utilization = elapsed <= 0 ? 0 : Math.min(1.0, (double) d.busyNanos() / elapsed);
            final long samples = d.processingSamples();
            final long waits = d.mailboxWaitSamples();
            final long messages = d.messagesProcessed();
            final long allocated = d.allocatedBytes();
            out.add(new DispatcherInfo(d.name(), d.threads(), d.queuedActors(), messages, d.runs(), utilization,
                samples == 0 ? 0 : d.processingNanos() / samples,
                waits == 0 ? 0 : d.mailboxWaitNanos() / waits,
                allocated,
                allocated < 0 || messages == 0 ? -1 : (double) allocated / messages));
        }
        return out;
    }

    private static List<MailboxEntry> largest(SystemMetrics m, int n) {
        if (n <= 0) {
            return List.of();
        }
        final PriorityQueue<MailboxEntry> top = new PriorityQueue<>(n + 1, BY_SIZE);
        m.forEachActor(a -> {
            final int size = a.mailboxSize();
            if (size > 0 && (top.size() < n || size > top.peek().size())) {
                top.add(new MailboxEntry(a.path().toString(), a.dispatcherName(), size, a.mailboxCapacity(), a.tracked()));
                if (top.size() > n) {
                    top.poll();
                }
            }
        });
        final List<MailboxEntry> out = new ArrayList<>(top);
        out.sort(BY_SIZE.reversed());
        return out;
    }

    private static ActorPage actors(SystemMetrics m, int offset, int limit) {
        final List<ActorEntry> page = new ArrayList<>(Math.min(limit, 64));
        final int[] index = new int[1];
        m.forEachActor(a -> {
            final int i = index[0]++;
            if (i >= offset && i < offset + limit) {
                page.add(entry(a));
            }
        });
        return new ActorPage(offset, limit, index[0], page);
    }

    private static ActorEntry entry(ActorMetrics a) {
        return new ActorEntry(a.path().toString(), a.path().depth(), a.behaviorName(), a.dispatcherName(),
            a.mailboxSize(), a.mailboxCapacity(), a.childCount(), a.tracked(),
            a.tracked() ? a.messagesProcessed() : null);
    }

    /** @return the largest allocators of the sampled turns, with their bytes per message and share */
    static AllocationReport allocation(AllocationMetrics a, int limit) {
        final List<AllocationMetrics.Row> rows = a.rows();
        long total = 0;
        long messages = 0;
        for (AllocationMetrics.Row r : rows) {
            total += r.bytes();
            messages += r.messages();
        }
        final List<Allocator> top = new ArrayList<>(Math.min(limit, rows.size()));
        for (int i = 0; i < rows.size() && i < limit; i++) {
            final AllocationMetrics.Row r = rows.get(i);
            top.add(new Allocator(r.behavior(), r.message(), Math.round(r.bytesPerMessage() * 10) / 10.0,
                total == 0 ? 0 : Math.round(r.bytes() * 1000.0 / total) / 1000.0, r.messages(), r.bytes()));
        }
        return new AllocationReport(a.enabled(), total, messages, rows.size(), top);
    }

    private static DeadLetterInfo deadLetters(DeadLetters d, int recentLimit) {
        final Map<String, Long> byReason = new LinkedHashMap<>();
        for (DeadLetterReason r : DeadLetterReason.values()) {
            byReason.put(r.tag(), d.count(r));
        }
        final List<DeadLetter> recent = d.recent();
        final List<RecentDeadLetter> out = new ArrayList<>();
        for (int i = Math.max(0, recent.size() - recentLimit); i < recent.size(); i++) {
            final DeadLetter l = recent.get(i);
            out.add(new RecentDeadLetter(l.message() == null ? "null" : l.message().getClass().getName(),
                l.recipient() == null ? null : l.recipient().toString(), l.reason().tag(), l.timestampMillis()));
        }
        return new DeadLetterInfo(d.total(), byReason, out);
    }

    /** The summary. */
    public record TroupeReport(SystemInfo system, List<DispatcherInfo> dispatchers, List<MailboxEntry> largestMailboxes,
                               DeadLetterInfo deadLetters, Map<String, Object> extensions) {
    }

    /** The system as a whole. */
    public record SystemInfo(String name, String uid, String state, long uptimeMillis, long liveActors,
                             long actorsSpawned, long actorsStopped, long messagesProcessed) {
    }

    /** One dispatcher and its load since start; -1 where the JVM cannot measure allocation. */
    public record DispatcherInfo(String name, int threads, int queuedActors, long messagesProcessed, long runs,
                                 double utilization, long meanProcessingNanos, long meanMailboxWaitNanos,
                                 long allocatedBytes, double allocatedBytesPerMessage) {
    }

    /**
     * Allocation in the sampled turns (one in 256 per actor) by behavior and message type.
     *
     * @param enabled whether attribution is on ({@code troupe.metrics.allocation-attribution})
     * @param sampledBytes bytes allocated in all sampled turns
     * @param sampledMessages messages processed in them
     * @param pairs how many (behavior, message type) pairs were seen
     * @param top the largest, by bytes
     */
    public record AllocationReport(boolean enabled, long sampledBytes, long sampledMessages, int pairs, List<Allocator> top) {
    }

    /**
     * One behavior and message type.
     *
     * @param behavior the class that defined the behavior
     * @param message the message class, or {@code mixed} for turns of several types, {@code adapted}
     *                for adapted responses, {@code other} beyond the bound
     * @param bytesPerMessage bytes allocated per message
     * @param share its part of all sampled allocation, 0 to 1
     * @param messagesSampled messages in its sampled turns
     * @param bytesSampled bytes in its sampled turns
     */
    public record Allocator(String behavior, String message, double bytesPerMessage, double share, long messagesSampled,
                            long bytesSampled) {
    }

    /** An actor's mailbox. */
    public record MailboxEntry(String path, String dispatcher, int size, int capacity, boolean tracked) {
    }

    /** One page of the actor tree, parents before children. */
    public record ActorPage(int offset, int limit, int total, List<ActorEntry> actors) {
    }

    /** One actor; {@code messagesProcessed} only for tracked actors. */
    public record ActorEntry(String path, int depth, String behavior, String dispatcher, int mailboxSize,
                             int mailboxCapacity, int children, boolean tracked, @Nullable Long messagesProcessed) {
    }

    /** Dead letters by reason and the most recent ones. */
    public record DeadLetterInfo(long total, Map<String, Long> byReason, List<RecentDeadLetter> recent) {
    }

    /** One recent dead letter. */
    public record RecentDeadLetter(String messageType, @Nullable String recipient, String reason, long timestampMillis) {
    }
}
