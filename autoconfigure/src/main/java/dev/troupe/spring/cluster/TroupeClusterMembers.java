package dev.troupe.spring.cluster;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code cluster} section of the {@code troupe} endpoint ({@code /actuator/troupe/cluster}):
 * this node and every member of its view with status, reachability, roles and version, and the
 * receptionist's entries by key. Bounded: the view holds at most {@code maxMembers}, the keys at
 * most {@value Receptionist#MAX_COUNTED_KEYS}.
 */
public class TroupeClusterMembers implements TroupeEndpointContributor {

    private final Cluster cluster;
    private final Receptionist receptionist;
    private final String discovery;

    /**
     * @param cluster the cluster
     * @param receptionist its receptionist
     * @param discovery how candidates are found, for the report ({@code static}, {@code dns}, {@code spring-cloud})
     */
    public TroupeClusterMembers(Cluster cluster, Receptionist receptionist, String discovery) {
        this.cluster = cluster;
        this.receptionist = receptionist;
        this.discovery = discovery;
    }

    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public ClusterInfo contribute() {
        final ClusterState state = cluster.state();
        final List<MemberInfo> members = new ArrayList<>(state.members().size());
        int unreachable = 0;
        for (Member m : state.members()) {
            members.add(info(m));
            if (!m.reachable()) {
                unreachable++;
            }
        }
        final Map<String, Integer> entries = new LinkedHashMap<>();
        for (Map.Entry<ServiceKey<?>, Integer> e : receptionist.entryCounts().entrySet()) {
            entries.put(e.getKey().id(), e.getValue());
        }
        return new ClusterInfo(info(state.selfMember()), discovery, members.size(), unreachable, cluster.viewChanges(), members, entries);
    }

    /**
     * {@code POST /actuator/troupe/cluster/down} and {@code .../leave} with {@code {"address": "troupe://system@host:port"}}:
     * {@link Cluster#down} and {@link Cluster#leave(Address)}.
     *
     * @param operation {@code down} or {@code leave}
     * @param address the member's address
     * @return what was done, or why not; null for another operation
     */
    @Override
    public @Nullable Object operate(String operation, String address) {
        if (!operation.equals("down") && !operation.equals("leave")) {
            return null;
        }
        final Address target;
        try {
            target = Address.parse(address);
        } catch (IllegalArgumentException e) {
            return new Outcome(operation, address, false, e.getMessage());
        }
        try {
            (operation.equals("down") ? cluster.down(target) : cluster.leave(target)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            return new Outcome(operation, target.toString(), true, operation.equals("down") ? "downed" : "asked to leave");
        } catch (ExecutionException e) {
            return new Outcome(operation, target.toString(), false, e.getCause().getMessage());
        } catch (TimeoutException e) {
            return new Outcome(operation, target.toString(), false, "no answer from the cluster within 10 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(operation, target.toString(), false, "interrupted");
        }
    }

    private static MemberInfo info(Member m) {
        return new MemberInfo(m.address().toString(), Long.toHexString(m.uid()), m.status().name(), m.reachable(), m.roles(), m.appVersion());
    }

    /** This node's membership. */
    public record ClusterInfo(MemberInfo self, String discovery, int memberCount, int unreachableCount, long viewChanges,
                              List<MemberInfo> members, Map<String, Integer> receptionistEntries) {
    }

    /**
     * The outcome of a write operation.
     *
     * @param operation {@code down} or {@code leave}
     * @param address the member named
     * @param done whether it was done
     * @param detail what was done, or why not
     */
    public record Outcome(String operation, String address, boolean done, String detail) {
    }

    /** One member as this node sees it. */
    public record MemberInfo(String address, String uid, String status, boolean reachable, Set<String> roles, String appVersion) {
    }
}
