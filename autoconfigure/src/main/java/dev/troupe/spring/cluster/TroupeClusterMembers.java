package dev.troupe.spring.cluster;

import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterState;
import dev.troupe.cluster.Member;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    private static MemberInfo info(Member m) {
        return new MemberInfo(m.address().toString(), Long.toHexString(m.uid()), m.status().name(), m.reachable(), m.roles(), m.appVersion());
    }

    /** This node's membership. */
    public record ClusterInfo(MemberInfo self, String discovery, int memberCount, int unreachableCount, long viewChanges,
                              List<MemberInfo> members, Map<String, Integer> receptionistEntries) {
    }

    /** One member as this node sees it. */
    public record MemberInfo(String address, String uid, String status, boolean reachable, Set<String> roles, String appVersion) {
    }
}
