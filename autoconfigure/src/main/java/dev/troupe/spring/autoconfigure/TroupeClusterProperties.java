package dev.troupe.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Cluster membership, under {@code troupe.cluster.*}. Off unless {@code troupe.cluster.enabled=true},
 * which needs the remote transport ({@code troupe.remote.enabled=true}). Group routers
 * ({@code troupe.cluster.routers.*}) and receptionist registrations work without it, on this node's
 * own actors.
 */
@ConfigurationProperties("troupe.cluster")
public class TroupeClusterProperties {

    /**
     * Whether to join a cluster: membership from discovery, a cluster-wide receptionist, group
     * routers over every member's actors.
     */
    private boolean enabled = false;

    /**
     * Where candidate members come from: a fixed list, the DNS records of a name (a Kubernetes
     * headless Service, a compose service), or a Spring Cloud DiscoveryClient.
     */
    private Discovery discovery = Discovery.STATIC;

    /**
     * Candidates for static discovery, as host:port of their remote transport (this node may be
     * among them).
     */
    private List<String> staticMembers = new ArrayList<>();

    private final Dns dns = new Dns();

    private final SpringCloud springCloud = new SpringCloud();

    /**
     * Roles of this node, announced to the others (placement and routing may select by role).
     */
    private Set<String> roles = new LinkedHashSet<>();

    /**
     * Application version this node announces. Defaults to spring.application.version when set.
     */
    private String appVersion;

    /**
     * How often discovery is asked again for candidates.
     */
    private Duration discoveryInterval = Duration.ofSeconds(5);

    /**
     * Remove a member unreachable this long even if discovery still lists it. Off by default:
     * with it set, both sides of a network partition remove each other (split brain).
     */
    private Duration downAfter;

    /**
     * What a node does about members it cannot reach, once its view has been stable for
     * stable-after: none (the default: an unreachable member goes when discovery stops listing it,
     * after down-after, or when an operator downs it), keep-majority, static-quorum (with
     * quorum-size), keep-oldest or down-all. See docs/cluster.md, "Downing".
     */
    private Downing downing = Downing.NONE;

    /**
     * How long the view must not change (no member unreachable, reachable again, joining or
     * going) before the downing strategy acts.
     */
    private Duration stableAfter = Duration.ofSeconds(20);

    /**
     * The quorum of the static-quorum downing strategy: more than half the cluster's intended
     * size. Only for static-quorum.
     */
    private int quorumSize;

    /**
     * How long this node waits for the first discovery round's candidates before announcing
     * itself up anyway.
     */
    private Duration joinTimeout = Duration.ofSeconds(10);

    /**
     * How long the hand-off may take when this node leaves, before it exits anyway.
     */
    private Duration leaveTimeout = Duration.ofSeconds(30);

    /**
     * Most members this node holds in its view; handshakes beyond are refused and counted.
     */
    private int maxMembers = 1000;

    /**
     * Most receptionist registrations one member can make this node hold.
     */
    private int maxReceptionistEntriesPerMember = 10_000;

    /**
     * Group routers by bean name: each is an ActorRef of its message type that routes to the
     * actors registered under its service key, on every member.
     */
    private Map<String, Router> routers = new LinkedHashMap<>();

    private final Sharding sharding = new Sharding();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Discovery getDiscovery() {
        return discovery;
    }

    public void setDiscovery(Discovery discovery) {
        this.discovery = discovery;
    }

    public List<String> getStaticMembers() {
        return staticMembers;
    }

    public void setStaticMembers(List<String> staticMembers) {
        this.staticMembers = staticMembers;
    }

    public Dns getDns() {
        return dns;
    }

    public SpringCloud getSpringCloud() {
        return springCloud;
    }

    public Set<String> getRoles() {
        return roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }

    public String getAppVersion() {
        return appVersion;
    }

    public void setAppVersion(String appVersion) {
        this.appVersion = appVersion;
    }

    public Duration getDiscoveryInterval() {
        return discoveryInterval;
    }

    public void setDiscoveryInterval(Duration discoveryInterval) {
        this.discoveryInterval = discoveryInterval;
    }

    public Duration getDownAfter() {
        return downAfter;
    }

    public void setDownAfter(Duration downAfter) {
        this.downAfter = downAfter;
    }

    public Downing getDowning() {
        return downing;
    }

    public void setDowning(Downing downing) {
        this.downing = downing;
    }

    public Duration getStableAfter() {
        return stableAfter;
    }

    public void setStableAfter(Duration stableAfter) {
        this.stableAfter = stableAfter;
    }

    public int getQuorumSize() {
        return quorumSize;
    }

    public void setQuorumSize(int quorumSize) {
        this.quorumSize = quorumSize;
    }

    public Duration getJoinTimeout() {
        return joinTimeout;
    }

    public void setJoinTimeout(Duration joinTimeout) {
        this.joinTimeout = joinTimeout;
    }

    public Duration getLeaveTimeout() {
        return leaveTimeout;
    }

    public void setLeaveTimeout(Duration leaveTimeout) {
        this.leaveTimeout = leaveTimeout;
    }

    public int getMaxMembers() {
        return maxMembers;
    }

    public void setMaxMembers(int maxMembers) {
        this.maxMembers = maxMembers;
    }

    public int getMaxReceptionistEntriesPerMember() {
        return maxReceptionistEntriesPerMember;
    }

    public void setMaxReceptionistEntriesPerMember(int maxReceptionistEntriesPerMember) {
        this.maxReceptionistEntriesPerMember = maxReceptionistEntriesPerMember;
    }

    public Map<String, Router> getRouters() {
        return routers;
    }

    public Sharding getSharding() {
        return sharding;
    }

    public void setRouters(Map<String, Router> routers) {
        this.routers = routers;
    }

    /** Discovery providers. */
    public enum Discovery {
        /** A fixed list: {@code troupe.cluster.static-members}. */
        STATIC,
        /** The A/AAAA (or SRV) records of {@code troupe.cluster.dns.name}. */
        DNS,
        /** The instances of {@code troupe.cluster.spring-cloud.service-id} from the application's DiscoveryClient. */
        SPRING_CLOUD
    }

    /** DNS discovery. */
    public static class Dns {

        /**
         * Name whose records are the candidates, such as a Kubernetes headless Service
         * (inventory.shop.svc.cluster.local) or a compose service (worker).
         */
        private String name;

        /**
         * Remote port of every candidate the A/AAAA records name. Defaults to this node's own
         * remote port.
         */
        private Integer port;

        /**
         * DNS server to ask, as host:port. Defaults to the platform's name servers.
         */
        private String server;

        /**
         * Whether to read SRV records of the name instead, each naming a target and its port.
         */
        private boolean srv = false;

        /**
         * How long one lookup may take; a lookup that times out keeps the previous candidates.
         */
        private Duration timeout = Duration.ofSeconds(2);

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public Integer getPort() {
            return port;
        }

        public void setPort(Integer port) {
            this.port = port;
        }

        public String getServer() {
            return server;
        }

        public void setServer(String server) {
            this.server = server;
        }

        public boolean isSrv() {
            return srv;
        }

        public void setSrv(boolean srv) {
            this.srv = srv;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** Spring Cloud discovery. */
    public static class SpringCloud {

        /**
         * Service whose instances are the candidates; each instance's metadata entry
         * 'troupe-port' is its remote port. Defaults to spring.application.name.
         */
        private String serviceId;

        public String getServiceId() {
            return serviceId;
        }

        public void setServiceId(String serviceId) {
            this.serviceId = serviceId;
        }
    }

    /** One group router. */
    public static class Router {

        /**
         * Id of the service key whose registered actors are the routees.
         */
        private String serviceKey;

        /**
         * Class of the messages the routees accept (the service key's type); the router bean is
         * an ActorRef of it.
         */
        private Class<?> messageType;

        /**
         * How a routee is chosen for each message.
         */
        private Routing routing = Routing.ROUND_ROBIN;

        /**
         * Messages held until the first listing arrives; beyond, they are dead letters
         * 'no-routees'.
         */
        private int stashCapacity = 1000;

        public String getServiceKey() {
            return serviceKey;
        }

        public void setServiceKey(String serviceKey) {
            this.serviceKey = serviceKey;
        }

        public Class<?> getMessageType() {
            return messageType;
        }

        public void setMessageType(Class<?> messageType) {
            this.messageType = messageType;
        }

        public Routing getRouting() {
            return routing;
        }

        public void setRouting(Routing routing) {
            this.routing = routing;
        }

        public int getStashCapacity() {
            return stashCapacity;
        }

        public void setStashCapacity(int stashCapacity) {
            this.stashCapacity = stashCapacity;
        }
    }

    /** Routing strategies a router can take from configuration (consistent hashing needs a key function: build it in code). */
    /**
     * The downing strategies, as {@code dev.troupe.cluster.DowningStrategy} names them. A type of
     * this class rather than the cluster's: these properties are bound in applications without
     * the cluster on the class path too.
     */
    public enum Downing {
        /** No strategy: discovery, down-after or an operator removes an unreachable member. */
        NONE,
        /** The side with more of the members keeps running. */
        KEEP_MAJORITY,
        /** A side with at least quorum-size members keeps running. */
        STATIC_QUORUM,
        /** The side with the oldest member keeps running. */
        KEEP_OLDEST,
        /** Every member downs itself. */
        DOWN_ALL
    }

    public enum Routing {
        /** Each routee in turn. */
        ROUND_ROBIN,
        /** A random routee. */
        RANDOM
    }

    /**
     * Defaults of every sharded entity type ({@code @TroupeEntity} beans and entities the
     * application initializes from the {@code ClusterSharding} bean are independent: these apply
     * to the former). Every node of the cluster must use the same number of shards.
     */
    public static class Sharding {

        /**
         * Number of shards of each entity type, the same on every node: about ten times the
         * largest number of members.
         */
        private int numberOfShards = 1000;

        private final Passivation passivation = new Passivation();

        /**
         * Most messages a node holds for shards that are moving or whose owner it cannot reach;
         * beyond, they are dead letters 'handoff-buffer-full' or 'shard-unavailable'.
         */
        private int bufferSize = 100_000;

        /**
         * How long an entity may take to stop after its stop message, on hand-off or
         * passivation, before it is stopped at once.
         */
        private Duration handOffTimeout = Duration.ofSeconds(10);

        /**
         * How many times a message may be forwarded between nodes whose views disagree before it
         * waits for the views to settle.
         */
        private int maxHops = 5;

        public int getNumberOfShards() {
            return numberOfShards;
        }

        public void setNumberOfShards(int numberOfShards) {
            this.numberOfShards = numberOfShards;
        }

        public Passivation getPassivation() {
            return passivation;
        }

        public int getBufferSize() {
            return bufferSize;
        }

        public void setBufferSize(int bufferSize) {
            this.bufferSize = bufferSize;
        }

        public Duration getHandOffTimeout() {
            return handOffTimeout;
        }

        public void setHandOffTimeout(Duration handOffTimeout) {
            this.handOffTimeout = handOffTimeout;
        }

        public int getMaxHops() {
            return maxHops;
        }

        public void setMaxHops(int maxHops) {
            this.maxHops = maxHops;
        }
    }

    /** When sharded entities are stopped until their next message. */
    public static class Passivation {

        /**
         * Idle time after which an entity is passivated; 0 keeps idle entities.
         */
        private Duration idleTimeout = Duration.ofMinutes(2);

        /**
         * Most active entities of one type on a node; starting one more passivates the least
         * recently used. 0 for no cap.
         */
        private int maxActiveEntities = 0;

        public Duration getIdleTimeout() {
            return idleTimeout;
        }

        public void setIdleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }

        public int getMaxActiveEntities() {
            return maxActiveEntities;
        }

        public void setMaxActiveEntities(int maxActiveEntities) {
            this.maxActiveEntities = maxActiveEntities;
        }
    }
}
