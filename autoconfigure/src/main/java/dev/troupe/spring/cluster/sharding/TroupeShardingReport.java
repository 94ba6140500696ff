package dev.troupe.spring.cluster.sharding;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.EntityLocation;
import dev.troupe.cluster.sharding.EntityTypeKey;
import dev.troupe.cluster.sharding.ShardingMetrics;
import dev.troupe.cluster.sharding.ShardingState;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The {@code sharding} section of the {@code troupe} endpoint ({@code /actuator/troupe/sharding}):
 * for each entity type initialized on this node, its entities and shards here, the shards each
 * member owns in this node's view, and this node's {@value #LARGEST_SHARDS} largest shards by
 * entities. Bounded: one entry per member of the view and per type this node initialized.
 *
 * <p>{@code /actuator/troupe/sharding/<type>}: where the type's shards and entities are, member by
 * member, asked of every member with the role ({@link ClusterSharding#state}); at most
 * {@value #MAX_ENTITY_IDS_PER_SHARD} entity ids per shard, with {@code capped} saying when more run.
 * {@code /actuator/troupe/sharding/<type>/<entity id>}: where one entity lives
 * ({@link ClusterSharding#entityLocation}). Both wait up to {@link ClusterSharding#DEFAULT_STATE_TIMEOUT}
 * for the members; one that does not answer is listed as such.
 */
public class TroupeShardingReport implements TroupeEndpointContributor {

    /** How many of this node's shards the report lists, largest first. */
    public static final int LARGEST_SHARDS = 10;

    /** Entity ids listed per shard at most by {@code /actuator/troupe/sharding/<type>}. */
    public static final int MAX_ENTITY_IDS_PER_SHARD = 10;

    private final Supplier<? extends Collection<? extends ShardingMetrics>> regions;
    private final Supplier<? extends @Nullable ClusterSharding> sharding;
    private final Cluster cluster;

    /**
     * @param regions this node's shard regions now (such as {@code ClusterSharding.metrics()})
     * @param cluster the cluster
     */
    public TroupeShardingReport(Supplier<? extends Collection<? extends ShardingMetrics>> regions, Cluster cluster) {
        this(regions, () -> null, cluster);
    }

    /**
     * @param regions this node's shard regions now (such as {@code ClusterSharding.metrics()})
     * @param sharding the node's sharding once created, else null (nothing is initialized then)
     * @param cluster the cluster
     */
    public TroupeShardingReport(Supplier<? extends Collection<? extends ShardingMetrics>> regions,
                                Supplier<? extends @Nullable ClusterSharding> sharding, Cluster cluster) {
        this.regions = regions;
        this.sharding = sharding;
        this.cluster = cluster;
    }

    /**
     * @param key an entity type's name
     * @param item an entity id, or null for the whole type
     * @return where the type's shards and entities are, or where the entity lives; null (404) for a type not initialized here
     */
    @Override
    public @Nullable Object detail(String key, @Nullable String item) {
        final ClusterSharding s = sharding.get();
        if (s == null) {
            return null;
        }
        EntityTypeKey<?> type = null;
        for (EntityTypeKey<?> k : s.entityTypes()) {
            if (k.name().equals(key)) {
                type = k;
            }
        }
        if (type == null) {
            return null;
        }
        if (item == null) {
            return typeState(await(s.state(type, MAX_ENTITY_IDS_PER_SHARD, ClusterSharding.DEFAULT_STATE_TIMEOUT).toCompletableFuture()));
        }
        if (item.isEmpty()) {
            return null;
        }
        final EntityLocation l = await(s.entityLocation(type, item).toCompletableFuture());
        return new EntityInfo(l.typeName(), l.entityId(), l.shard(), text(l.owner()), text(l.hostedBy()), l.started(),
            l.notAnswered().stream().map(Address::toString).toList());
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(ClusterSharding.DEFAULT_STATE_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the members", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the shard region did not answer: " + e, e);
        }
    }

    private static @Nullable String text(@Nullable Address a) {
        return a == null ? null : a.toString();
    }

    private static TypeState typeState(ShardingState state) {
        final List<MemberInfo> members = new ArrayList<>(state.members().size());
        for (ShardingState.MemberState m : state.members()) {
            final List<ShardEntities> shards = new ArrayList<>(m.shards().size());
            for (ShardingState.ShardState sh : m.shards()) {
                shards.add(new ShardEntities(sh.shard(), sh.entities(), sh.entityIds(), sh.capped()));
            }
            members.add(new MemberInfo(m.member().toString(), m.answer().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                m.shards().size(), m.entities(), shards));
        }
        return new TypeState(state.typeName(), state.shards(), state.entities(), MAX_ENTITY_IDS_PER_SHARD, members);
    }

    @Override
    public String name() {
        return "sharding";
    }

    @Override
    public ShardingInfo contribute() {
        final List<EntityTypeInfo> types = new ArrayList<>();
        int entities = 0;
        int shards = 0;
        for (ShardingMetrics m : regions.get()) {
            types.add(info(m));
            entities += m.activeEntities();
            shards += m.hostedShards();
        }
        types.sort(Comparator.comparing(EntityTypeInfo::name));
        return new ShardingInfo(cluster.selfMember().address().toString(), entities, shards, types);
    }

    private static EntityTypeInfo info(ShardingMetrics m) {
        final Map<String, Integer> perMember = new TreeMap<>();
        int owned = 0;
        for (Map.Entry<Address, Integer> e : m.shardsByOwner().entrySet()) {
            perMember.put(e.getKey().toString(), e.getValue());
            owned += e.getValue();
        }
        final List<Map.Entry<Integer, Integer>> byShard = new ArrayList<>(m.entitiesByShard().entrySet());
        byShard.sort(Map.Entry.<Integer, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        final List<ShardInfo> largest = new ArrayList<>(Math.min(LARGEST_SHARDS, byShard.size()));
        for (Map.Entry<Integer, Integer> e : byShard) {
            if (largest.size() == LARGEST_SHARDS) {
                break;
            }
            largest.add(new ShardInfo(e.getKey(), e.getValue()));
        }
        final Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("entitiesStarted", m.entitiesStarted());
        counters.put("passivations", m.passivations());
        counters.put("handOffs", m.handOffs());
        counters.put("forwardedMessages", m.forwardedMessages());
        counters.put("bufferedMessagesTotal", m.bufferedMessagesTotal());
        counters.put("rejectedMessages", m.rejectedMessages());
        return new EntityTypeInfo(m.typeName(), m.numberOfShards(), m.activeEntities(), m.hostedShards(), m.bufferedMessages(),
            m.numberOfShards() - owned, perMember, largest, counters);
    }

    /** This node's sharding. */
    public record ShardingInfo(String self, int activeEntities, int hostedShards, List<EntityTypeInfo> entityTypes) {
    }

    /**
     * One entity type on this node.
     *
     * @param unownedShards shards without an owner in this node's view (no member with the role is up)
     * @param shardsPerMember shards each member owns in this node's view, by address
     * @param largestShards this node's shards with the most entities, largest first
     * @param counters the region's counters since start
     */
    public record EntityTypeInfo(String name, int numberOfShards, int activeEntities, int hostedShards, int bufferedMessages,
                                 int unownedShards, Map<String, Integer> shardsPerMember, List<ShardInfo> largestShards,
                                 Map<String, Long> counters) {
    }

    /** A shard and its entities on this node. */
    public record ShardInfo(int shard, int entities) {
    }

    /**
     * Where one entity type's shards and entities are ({@code /actuator/troupe/sharding/<type>}).
     *
     * @param hostedShards the shards the members that answered host
     * @param activeEntities the entities running on them
     * @param maxEntityIdsPerShard the most entity ids listed per shard
     * @param members one entry per member with the role in this node's view
     */
    public record TypeState(String name, int hostedShards, int activeEntities, int maxEntityIdsPerShard, List<MemberInfo> members) {
    }

    /**
     * One member's part.
     *
     * @param answer {@code answered}, {@code no-answer} (asked, no answer in time) or {@code no-region} (no region of the type known here)
     */
    public record MemberInfo(String address, String answer, int hostedShards, int activeEntities, List<ShardEntities> shards) {
    }

    /**
     * A shard a member hosts.
     *
     * @param capped whether more entities run than {@code entityIds} lists
     */
    public record ShardEntities(int shard, int entities, List<String> entityIds, boolean capped) {
    }

    /**
     * Where one entity lives ({@code /actuator/troupe/sharding/<type>/<entity id>}).
     *
     * @param owner the shard's owner in this node's view, or null if none
     * @param hostedBy the member that said it hosts the shard, or null if none did
     * @param started whether the entity runs now
     * @param notAnswered the members with the role that did not answer
     */
    public record EntityInfo(String type, String entityId, int shard, @Nullable String owner, @Nullable String hostedBy, boolean started,
                             List<String> notAnswered) {
    }
}
