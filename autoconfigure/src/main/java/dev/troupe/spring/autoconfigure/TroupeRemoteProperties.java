package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorPath;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The remote transport, under {@code troupe.remote.*}. Off unless
 * {@code troupe.remote.enabled=true}; then a secret (or an SSL bundle for mutual TLS) is
 * required unless {@code troupe.remote.insecure=true} says otherwise.
 *
 * <p>The field defaults repeat {@code RemoteSettings}' on purpose: the configuration processor
 * reads them from the initializers into the metadata (what an IDE shows), which it cannot do
 * from another class. {@code TroupeRemotePropertiesTests.defaultsShouldBeTheLibrarysDefaults}
 * keeps the two equal.
 */
@ConfigurationProperties("troupe.remote")
public class TroupeRemoteProperties implements Validator {

    /**
     * Whether to start the remote transport.
     */
    private boolean enabled = false;

    /**
     * Address to listen on. Loopback by default: set it to reach other machines.
     */
    private String bindHost = "127.0.0.1";

    /**
     * Port to listen on; 0 picks a free one.
     */
    private int bindPort = 25520;

    /**
     * Host other nodes use to reach this one (in actor paths). Defaults to the bind host.
     */
    private String canonicalHost;

    /**
     * Port other nodes use to reach this one. Defaults to the bound port.
     */
    private Integer canonicalPort;

    /**
     * Shared secret (at least 16 bytes) every node proves in the handshake.
     */
    private String secret;

    /**
     * Whether to allow a transport with neither a secret nor mutual TLS.
     */
    private boolean insecure = false;

    private final Ssl ssl = new Ssl();

    private final Serialization serialization = new Serialization();

    /**
     * Largest frame accepted or sent; bigger messages are refused before any allocation.
     */
    private DataSize maxFrameSize = DataSize.ofKilobytes(256);

    /**
     * Outbound buffer per peer, a power of two at least 8 times the max frame size; a full
     * buffer sends messages to dead letters as 'outbound-overflow'.
     */
    private DataSize outboundBufferSize = DataSize.ofMegabytes(2);

    /**
     * Number of I/O threads.
     */
    private int ioThreads = 1;

    /**
     * How long an I/O thread that ran out of work keeps polling before it sleeps (epoll only, at
     * most 1ms); pays only on machines with cores to spare.
     */
    private Duration ioIdleSpin = Duration.ZERO;

    /**
     * Send buffer (SO_SNDBUF) asked of each outbound connection's socket; 0 leaves its sizing to
     * the kernel (on Linux up to 4MB). A small message waits behind the large frames the socket
     * holds, so a small buffer keeps small round trips quick beside large messages; it also caps
     * the bytes in flight per round-trip time (about twice this value), so across long-distance
     * links set 0 or a larger value.
     */
    private DataSize socketSendBuffer = DataSize.ofKilobytes(256);

    /**
     * Interval between heartbeats to each peer.
     */
    private Duration heartbeatInterval = Duration.ofSeconds(1);

    /**
     * Whether to use the epoll transport where available.
     */
    private boolean nativeTransport = true;

    /**
     * How long to let outbound messages drain when the application stops.
     */
    private Duration flushTimeout = Duration.ofSeconds(1);

    /**
     * Longest a connection may take to complete the handshake before it is closed.
     */
    private Duration handshakeTimeout = Duration.ofSeconds(5);

    /**
     * How long a connection may stay silent (no frame, not even a heartbeat) before it is
     * closed; at least twice the heartbeat interval.
     */
    private Duration idleTimeout = Duration.ofSeconds(30);

    /**
     * Most inbound connections open at once; further ones are refused and counted.
     */
    private int maxConnections = 256;

    /**
     * Interval at which unacknowledged system messages (watch, terminated, ...) are sent again.
     */
    private Duration systemMessageResendInterval = Duration.ofSeconds(1);

    /**
     * Most actor paths and class names each association compresses per direction; further
     * ones travel as text.
     */
    private int maxCompressionEntries = 65_536;

    /**
     * Most inbound connections that have not completed the handshake, in total; further ones are refused and counted (too-many-handshakes).
     */
    private int maxPendingHandshakes = 64;

    /**
     * Most inbound connections that have not completed the handshake from one source IP address.
     */
    private int maxPendingHandshakesPerSource = 8;

    /**
     * Most remote nodes this node keeps state for at once (peers it sends to and peers that completed a handshake); new peers beyond are refused (association-limit).
     */
    private int maxAssociations = 256;

    /**
     * How long an association without connection, traffic, pending system messages or watches (or whose node is lost) is kept before it is removed with its buffer and meters.
     */
    private Duration removeIdleAssociationAfter = Duration.ofMinutes(5);

    /**
     * Longest actor path accepted from a peer, in characters; longer ones close the connection (path-too-long).
     */
    private int maxPathLength = 2048;

    /**
     * Most path elements below the root accepted from a peer.
     */
    private int maxPathDepth = 32;

    /**
     * Most system messages (watch, unwatch, terminated) sent to one peer and not yet acknowledged; overflow quarantines that incarnation of the peer.
     */
    private int maxUnackedSystemMessages = 4096;

    /**
     * Most watches one peer may hold on this node's actors; a watch beyond closes its connection (watch-limit).
     */
    private int maxInboundWatches = 4096;

    /**
     * Bytes one peer may make this node hold: its outbound buffer, compression tables, watches, unacknowledged system messages; beyond, the connection that asked is closed (memory-limit). Unset: 16MB, or twice the outbound buffer size if that is more; at least the outbound buffer size.
     */
    private DataSize maxPeerMemory;

    /**
     * Bytes all peers together may make this node hold, the outbound lanes' segments included; beyond, the peer that asks is refused as for max-peer-memory, and a message whose lane cannot grow is a dead letter (memory-limit). Unset: 256MB, or max-peer-memory if that is more.
     */
    private DataSize maxRemoteMemory;

    /**
     * Most messages queued for one peer while it is not connected; further tells become dead letters (outbound-overflow).
     */
    private int maxQueuedMessages = 3072;

    /**
     * Longest time a message may wait in the outbound buffer; older ones become dead letters (outbound-expired) instead of being sent late.
     */
    private Duration maxQueueTime = Duration.ofSeconds(20);

    /**
     * Mailbox depth of a local actor above which a connection delivering to it stops reading until the mailbox drained.
     */
    private int inboundMailboxHighWatermark = 100_000;

    /**
     * With mutual TLS: for each system name, the subject alternative name (DNS name or IP
     * literal) the certificates of that system's nodes must carry, instead of the host each node claims.
     */
    private final Map<String, String> tlsPeerIdentities = new LinkedHashMap<>();

    private final FailureDetector failureDetector = new FailureDetector();

    private final Reconnect reconnect = new Reconnect();

    /**
     * Known nodes by name, each 'system@host:port'.
     */
    private final Map<String, String> peers = new LinkedHashMap<>();

    /**
     * Remote ActorRef beans by bean name: the actor's peer, path and message type.
     */
    private final Map<String, Ref> refs = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBindHost() {
        return bindHost;
    }

    public void setBindHost(String bindHost) {
        this.bindHost = bindHost;
    }

    public int getBindPort() {
        return bindPort;
    }

    public void setBindPort(int bindPort) {
        this.bindPort = bindPort;
    }

    public String getCanonicalHost() {
        return canonicalHost;
    }

    public void setCanonicalHost(String canonicalHost) {
        this.canonicalHost = canonicalHost;
    }

    public Integer getCanonicalPort() {
        return canonicalPort;
    }

    public void setCanonicalPort(Integer canonicalPort) {
        this.canonicalPort = canonicalPort;
    }

    public String getSecret() {
        return secret;
    }

    public void setSecret(String secret) {
        this.secret = secret;
    }

    public boolean isInsecure() {
        return insecure;
    }

    public void setInsecure(boolean insecure) {
        this.insecure = insecure;
    }

    public Ssl getSsl() {
        return ssl;
    }

    public Serialization getSerialization() {
        return serialization;
    }

    public DataSize getMaxFrameSize() {
        return maxFrameSize;
    }

    public void setMaxFrameSize(DataSize maxFrameSize) {
        this.maxFrameSize = maxFrameSize;
    }

    public DataSize getOutboundBufferSize() {
        return outboundBufferSize;
    }

    public void setOutboundBufferSize(DataSize outboundBufferSize) {
        this.outboundBufferSize = outboundBufferSize;
    }

    public int getIoThreads() {
        return ioThreads;
    }

    public void setIoThreads(int ioThreads) {
        this.ioThreads = ioThreads;
    }

    public Duration getIoIdleSpin() {
        return ioIdleSpin;
    }

    public void setIoIdleSpin(Duration ioIdleSpin) {
        this.ioIdleSpin = ioIdleSpin;
    }

    public DataSize getSocketSendBuffer() {
        return socketSendBuffer;
    }

    public void setSocketSendBuffer(DataSize socketSendBuffer) {
        this.socketSendBuffer = socketSendBuffer;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public boolean isNativeTransport() {
        return nativeTransport;
    }

    public void setNativeTransport(boolean nativeTransport) {
        this.nativeTransport = nativeTransport;
    }

    public Duration getFlushTimeout() {
        return flushTimeout;
    }

    public void setFlushTimeout(Duration flushTimeout) {
        this.flushTimeout = flushTimeout;
    }

    public Duration getHandshakeTimeout() {
        return handshakeTimeout;
    }

    public void setHandshakeTimeout(Duration handshakeTimeout) {
        this.handshakeTimeout = handshakeTimeout;
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    public int getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    public Duration getSystemMessageResendInterval() {
        return systemMessageResendInterval;
    }

    public void setSystemMessageResendInterval(Duration systemMessageResendInterval) {
        this.systemMessageResendInterval = systemMessageResendInterval;
    }

    public int getMaxCompressionEntries() {
        return maxCompressionEntries;
    }

    public void setMaxCompressionEntries(int maxCompressionEntries) {
        this.maxCompressionEntries = maxCompressionEntries;
    }

    public int getMaxPendingHandshakes() {
        return maxPendingHandshakes;
    }

    public void setMaxPendingHandshakes(int maxPendingHandshakes) {
        this.maxPendingHandshakes = maxPendingHandshakes;
    }

    public int getMaxPendingHandshakesPerSource() {
        return maxPendingHandshakesPerSource;
    }

    public void setMaxPendingHandshakesPerSource(int maxPendingHandshakesPerSource) {
        this.maxPendingHandshakesPerSource = maxPendingHandshakesPerSource;
    }

    public int getMaxAssociations() {
        return maxAssociations;
    }

    public void setMaxAssociations(int maxAssociations) {
        this.maxAssociations = maxAssociations;
    }

    public Duration getRemoveIdleAssociationAfter() {
        return removeIdleAssociationAfter;
    }

    public void setRemoveIdleAssociationAfter(Duration removeIdleAssociationAfter) {
        this.removeIdleAssociationAfter = removeIdleAssociationAfter;
    }

    public int getMaxPathLength() {
        return maxPathLength;
    }

    public void setMaxPathLength(int maxPathLength) {
        this.maxPathLength = maxPathLength;
    }

    public int getMaxPathDepth() {
        return maxPathDepth;
    }

    public void setMaxPathDepth(int maxPathDepth) {
        this.maxPathDepth = maxPathDepth;
    }

    public int getMaxUnackedSystemMessages() {
        return maxUnackedSystemMessages;
    }

    public void setMaxUnackedSystemMessages(int maxUnackedSystemMessages) {
        this.maxUnackedSystemMessages = maxUnackedSystemMessages;
    }

    public int getMaxInboundWatches() {
        return maxInboundWatches;
    }

    public void setMaxInboundWatches(int maxInboundWatches) {
        this.maxInboundWatches = maxInboundWatches;
    }

    public DataSize getMaxPeerMemory() {
        return maxPeerMemory;
    }

    public void setMaxPeerMemory(DataSize maxPeerMemory) {
        this.maxPeerMemory = maxPeerMemory;
    }

    public DataSize getMaxRemoteMemory() {
        return maxRemoteMemory;
    }

    public void setMaxRemoteMemory(DataSize maxRemoteMemory) {
        this.maxRemoteMemory = maxRemoteMemory;
    }

    public int getMaxQueuedMessages() {
        return maxQueuedMessages;
    }

    public void setMaxQueuedMessages(int maxQueuedMessages) {
        this.maxQueuedMessages = maxQueuedMessages;
    }

    public Duration getMaxQueueTime() {
        return maxQueueTime;
    }

    public void setMaxQueueTime(Duration maxQueueTime) {
        this.maxQueueTime = maxQueueTime;
    }

    public int getInboundMailboxHighWatermark() {
        return inboundMailboxHighWatermark;
    }

    public void setInboundMailboxHighWatermark(int inboundMailboxHighWatermark) {
        this.inboundMailboxHighWatermark = inboundMailboxHighWatermark;
    }

    public Map<String, String> getTlsPeerIdentities() {
        return tlsPeerIdentities;
    }

    public FailureDetector getFailureDetector() {
        return failureDetector;
    }

    public Reconnect getReconnect() {
        return reconnect;
    }

    public Map<String, String> getPeers() {
        return peers;
    }

    public Map<String, Ref> getRefs() {
        return refs;
    }

    @Override
    public boolean supports(Class<?> type) {
        return TroupeRemoteProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        for (String problem : ((TroupeRemoteProperties) target).problems()) {
            errors.reject("troupe.remote.invalid", problem);
        }
    }

    /**
     * Checks what belongs to the properties alone and is not checked elsewhere: the remote
     * settings builder checks the transport's values, {@code RemoteRefRegistrar} the peers and
     * refs (before any bean is created).
     *
     * @return one message per invalid value, each naming its property
     */
    public List<String> problems() {
        final List<String> p = new ArrayList<>();
        if (flushTimeout == null || flushTimeout.isNegative()) {
            p.add("troupe.remote.flush-timeout must not be negative, was " + flushTimeout);
        }
        return p;
    }

    /**
     * @param address {@code system@host:port}
     * @return the root path of that node
     */
    public static ActorPath peerRoot(String address) {
        return ActorPath.parse(ActorPath.SCHEME + "://" + address + "/");
    }

    /** The phi-accrual failure detector that declares a peer lost. */
    public static class FailureDetector {

        /**
         * Phi above which a peer is declared lost.
         */
        private double threshold = 10.0;

        /**
         * Heartbeat pause tolerated before phi rises (a GC pause, a busy peer).
         */
        private Duration acceptableHeartbeatPause = Duration.ofSeconds(3);

        /**
         * Lowest standard deviation of heartbeat intervals the detector assumes, so very regular
         * heartbeats do not make it oversensitive.
         */
        private Duration minStdDeviation = Duration.ofMillis(100);

        public double getThreshold() {
            return threshold;
        }

        public void setThreshold(double threshold) {
            this.threshold = threshold;
        }

        public Duration getAcceptableHeartbeatPause() {
            return acceptableHeartbeatPause;
        }

        public void setAcceptableHeartbeatPause(Duration acceptableHeartbeatPause) {
            this.acceptableHeartbeatPause = acceptableHeartbeatPause;
        }

        public Duration getMinStdDeviation() {
            return minStdDeviation;
        }

        public void setMinStdDeviation(Duration minStdDeviation) {
            this.minStdDeviation = minStdDeviation;
        }
    }

    /** Reconnection to a peer whose connection dropped: capped exponential backoff. */
    public static class Reconnect {

        /**
         * First wait before reconnecting; it doubles after each failed attempt.
         */
        private Duration minBackoff = Duration.ofMillis(100);

        /**
         * Longest wait between two reconnection attempts.
         */
        private Duration maxBackoff = Duration.ofSeconds(5);

        public Duration getMinBackoff() {
            return minBackoff;
        }

        public void setMinBackoff(Duration minBackoff) {
            this.minBackoff = minBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }
    }

    /** Mutual TLS. */
    public static class Serialization {

        /**
         * Whether the default serializer registry carries the Jackson marker serializers: CBOR
         * for messages that implement dev.troupe.remote.CborSerializable, JSON for
         * dev.troupe.remote.JsonSerializable. Needs jackson-databind and jackson-dataformat-cbor
         * (the remote and cluster starters bring them). An application's own SerializerRegistry
         * bean adds them with JacksonSerializer.registerMarkers(builder).
         */
        private boolean jacksonMarkers = true;

        /**
         * Packages (each with its sub-packages) whose message classes the CBOR marker serializer
         * also allows without the marker interface. Every node needs the same list.
         */
        private List<String> allowedPackages = new ArrayList<>();

        public boolean isJacksonMarkers() {
            return jacksonMarkers;
        }

        public void setJacksonMarkers(boolean jacksonMarkers) {
            this.jacksonMarkers = jacksonMarkers;
        }

        public List<String> getAllowedPackages() {
            return allowedPackages;
        }

        public void setAllowedPackages(List<String> allowedPackages) {
            this.allowedPackages = allowedPackages;
        }
    }

    public static class Ssl {

        /**
         * SSL bundle (spring.ssl.bundle.*) for mutual TLS between nodes, instead of a secret.
         */
        private String bundle;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }
    }

    /** A remote actor exposed as an ActorRef bean. */
    public static class Ref {

        /**
         * Name of the node, one of troupe.remote.peers.
         */
        private String peer;

        /**
         * Path of the actor on that node, such as /user/inventory.
         */
        private String path;

        /**
         * Class of the messages the actor accepts; the bean is an ActorRef of it.
         */
        private Class<?> messageType;

        public String getPeer() {
            return peer;
        }

        public void setPeer(String peer) {
            this.peer = peer;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public Class<?> getMessageType() {
            return messageType;
        }

        public void setMessageType(Class<?> messageType) {
            this.messageType = messageType;
        }

        /**
         * @param peerAddress the peer's {@code system@host:port}
         * @return the actor's full path
         */
        public ActorPath actorPath(String peerAddress) {
            return ActorPath.parse(ActorPath.SCHEME + "://" + peerAddress + path);
        }
    }
}
