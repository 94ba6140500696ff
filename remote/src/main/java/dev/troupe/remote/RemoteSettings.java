package dev.troupe.remote;

import dev.troupe.actor.InvalidSettingException;
import dev.troupe.remote.internal.HostNames;
import io.netty.handler.ssl.SslContext;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link RemoteTransport}. Build with {@link #builder()}; {@link Builder#build()}
 * validates and throws {@link InvalidSettingException} naming the builder method that took the
 * refused value (such as {@code RemoteSettings.Builder.secret}), so an integration (the Spring
 * Boot starter) can translate it into its own configuration key.
 *
 * <p>Authentication is required: either an HMAC shared secret ({@link Builder#secret(String)}),
 * or mutual TLS ({@link Builder#tls}: server and client {@link SslContext}s), or an explicit
 * {@link Builder#insecure(boolean) insecure(true)}.
 *
 * <p>Every piece of state a remote peer can make this node hold has a bound here: frame size,
 * path length and depth, compression entries, associations, pending handshakes, connections,
 * unacknowledged system messages, inbound watches, and the messages queued for a peer that is
 * not reachable (by bytes, count and age); and in bytes, per peer and for the node, all of these
 * together ({@link Builder#maxPeerMemory}, {@link Builder#maxRemoteMemory}).
 */
public final class RemoteSettings {

    private final String bindHost;
    private final int bindPort;
    private final String canonicalHost;
    private final int canonicalPort;
    private final byte[] secret;
    private final boolean insecure;
    private final SslContext serverSsl;
    private final SslContext clientSsl;
    private final Map<String, String> tlsPeerIdentities;
    private final int maxFrameSize;
    private final int outboundBufferSize;
    private final Duration handshakeTimeout;
    private final Duration idleTimeout;
    private final int maxConnections;
    private final int maxPendingHandshakes;
    private final int maxPendingHandshakesPerSource;
    private final int maxAssociations;
    private final Duration removeIdleAssociationAfter;
    private final int maxPathLength;
    private final int maxPathDepth;
    private final int maxUnackedSystemMessages;
    private final int maxInboundWatches;
    private final int maxQueuedMessages;
    private final Duration maxQueueTime;
    private final int inboundMailboxHighWatermark;
    private final Duration heartbeatInterval;
    private final double phiThreshold;
    private final Duration acceptableHeartbeatPause;
    private final Duration minHeartbeatStdDev;
    private final Duration reconnectMinBackoff;
    private final Duration reconnectMaxBackoff;
    private final Duration systemMessageResendInterval;
    private final int maxCompressionEntries;
    private final long maxPeerMemory;
    private final long maxRemoteMemory;
    private final int ioThreads;
    private final Duration ioIdleSpin;
    private final int socketSendBuffer;
    private final boolean nativeTransport;
    private final SerializerRegistry serializers;

    private RemoteSettings(Builder b) {
        this.bindHost = b.bindHost;
        this.bindPort = b.bindPort;
        this.canonicalHost = b.canonicalHost != null ? b.canonicalHost : b.bindHost;
        this.canonicalPort = b.canonicalPort;
        this.secret = b.secret;
        this.insecure = b.insecure;
        this.serverSsl = b.serverSsl;
        this.clientSsl = b.clientSsl;
        this.tlsPeerIdentities = Map.copyOf(b.tlsPeerIdentities);
        this.maxFrameSize = b.maxFrameSize;
        this.outboundBufferSize = b.outboundBufferSize;
        this.handshakeTimeout = b.handshakeTimeout;
        this.idleTimeout = b.idleTimeout;
        this.maxConnections = b.maxConnections;
        this.maxPendingHandshakes = b.maxPendingHandshakes;
        this.maxPendingHandshakesPerSource = b.maxPendingHandshakesPerSource;
        this.maxAssociations = b.maxAssociations;
        this.removeIdleAssociationAfter = b.removeIdleAssociationAfter;
        this.maxPathLength = b.maxPathLength;
        this.maxPathDepth = b.maxPathDepth;
        this.maxUnackedSystemMessages = b.maxUnackedSystemMessages;
        this.maxInboundWatches = b.maxInboundWatches;
        this.maxQueuedMessages = b.maxQueuedMessages;
        this.maxQueueTime = b.maxQueueTime;
        this.inboundMailboxHighWatermark = b.inboundMailboxHighWatermark;
        this.heartbeatInterval = b.heartbeatInterval;
        this.phiThreshold = b.phiThreshold;
        this.acceptableHeartbeatPause = b.acceptableHeartbeatPause;
        this.minHeartbeatStdDev = b.minHeartbeatStdDev;
        this.reconnectMinBackoff = b.reconnectMinBackoff;
        this.reconnectMaxBackoff = b.reconnectMaxBackoff;
        this.systemMessageResendInterval = b.systemMessageResendInterval;
        this.maxCompressionEntries = b.maxCompressionEntries;
        this.maxPeerMemory = b.peerMemory();
        this.maxRemoteMemory = b.remoteMemory();
        this.ioThreads = b.ioThreads;
        this.ioIdleSpin = b.ioIdleSpin;
        this.socketSendBuffer = b.socketSendBuffer;
        this.nativeTransport = b.nativeTransport;
        this.serializers = b.serializers;
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    public String bindHost() { return bindHost; }
    public int bindPort() { return bindPort; }
    public String canonicalHost() { return canonicalHost; }
    /** @return the advertised port, or -1 to use the bound port */
    public int canonicalPort() { return canonicalPort; }
    /** @return a copy of the shared secret, or null */
    public byte[] secret() { return secret == null ? null : secret.clone(); }
    public boolean insecure() { return insecure; }
    public SslContext serverSsl() { return serverSsl; }
    public SslContext clientSsl() { return clientSsl; }
    public boolean tls() { return serverSsl != null; }
    /** @return system name to the certificate subject alternative name its node must present (TLS only) */
    public Map<String, String> tlsPeerIdentities() { return tlsPeerIdentities; }
    public int maxFrameSize() { return maxFrameSize; }
    public int outboundBufferSize() { return outboundBufferSize; }
    public Duration handshakeTimeout() { return handshakeTimeout; }
    public Duration idleTimeout() { return idleTimeout; }
    public int maxConnections() { return maxConnections; }
    public int maxPendingHandshakes() { return maxPendingHandshakes; }
    public int maxPendingHandshakesPerSource() { return maxPendingHandshakesPerSource; }
    public int maxAssociations() { return maxAssociations; }
    public Duration removeIdleAssociationAfter() { return removeIdleAssociationAfter; }
    public int maxPathLength() { return maxPathLength; }
    public int maxPathDepth() { return maxPathDepth; }
    public int maxUnackedSystemMessages() { return maxUnackedSystemMessages; }
    public int maxInboundWatches() { return maxInboundWatches; }
    public int maxQueuedMessages() { return maxQueuedMessages; }
    public Duration maxQueueTime() { return maxQueueTime; }
    public int inboundMailboxHighWatermark() { return inboundMailboxHighWatermark; }
    public Duration heartbeatInterval() { return heartbeatInterval; }
    public double phiThreshold() { return phiThreshold; }
    public Duration acceptableHeartbeatPause() { return acceptableHeartbeatPause; }
    public Duration minHeartbeatStdDev() { return minHeartbeatStdDev; }
    public Duration reconnectMinBackoff() { return reconnectMinBackoff; }
    public Duration reconnectMaxBackoff() { return reconnectMaxBackoff; }
    public Duration systemMessageResendInterval() { return systemMessageResendInterval; }
    public int maxCompressionEntries() { return maxCompressionEntries; }
    /** @return bytes one peer may make this node hold (see {@link Builder#maxPeerMemory}) */
    public long maxPeerMemory() { return maxPeerMemory; }
    /** @return bytes all peers together may make this node hold (see {@link Builder#maxRemoteMemory}) */
    public long maxRemoteMemory() { return maxRemoteMemory; }
    public int ioThreads() { return ioThreads; }
    public Duration ioIdleSpin() { return ioIdleSpin; }
    /** @return the send buffer asked of each outbound connection's socket in bytes, or 0: the kernel's own sizing (see {@link Builder#socketSendBuffer}) */
    public int socketSendBuffer() { return socketSendBuffer; }
    public boolean nativeTransport() { return nativeTransport; }
    public SerializerRegistry serializers() { return serializers; }

    /**
     * Builds {@link RemoteSettings}; not thread-safe. {@link #build()} validates every value and
     * names the refused one by its builder method ({@code RemoteSettings.Builder.<method>}).
     */
    public static final class Builder {
        private static final String PREFIX = "RemoteSettings.Builder.";

        private String bindHost = "127.0.0.1";
        private int bindPort = 25520;
        private String canonicalHost;
        private int canonicalPort = -1;
        private byte[] secret;
        private boolean insecure;
        private SslContext serverSsl;
        private SslContext clientSsl;
        private final Map<String, String> tlsPeerIdentities = new LinkedHashMap<>();
        private int maxFrameSize = 256 * 1024;
        private int outboundBufferSize = 2 << 20;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private int maxConnections = 256;
        private int maxPendingHandshakes = 64;
        private int maxPendingHandshakesPerSource = 8;
        private int maxAssociations = 256;
        private Duration removeIdleAssociationAfter = Duration.ofMinutes(5);
        private int maxPathLength = 2048;
        private int maxPathDepth = 32;
        private int maxUnackedSystemMessages = 4096;
        private int maxInboundWatches = 4096;
        private int maxQueuedMessages = 3072;
        private Duration maxQueueTime = Duration.ofSeconds(20);
        private int inboundMailboxHighWatermark = 100_000;
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private double phiThreshold = 10.0;
        private Duration acceptableHeartbeatPause = Duration.ofSeconds(3);
        private Duration minHeartbeatStdDev = Duration.ofMillis(100);
        private Duration reconnectMinBackoff = Duration.ofMillis(100);
        private Duration reconnectMaxBackoff = Duration.ofSeconds(5);
        private Duration systemMessageResendInterval = Duration.ofSeconds(1);
        private int maxCompressionEntries = 65_536;
        /** -1: derived from outboundBufferSize in build(). */
        private long maxPeerMemory = -1;
        private long maxRemoteMemory = -1;
        private int ioThreads = 1;
        private Duration ioIdleSpin = Duration.ZERO;
        private int socketSendBuffer = 256 << 10;
        private boolean nativeTransport = true;
        private SerializerRegistry serializers = SerializerRegistry.defaults();

        private Builder() {
        }

        /** Address to listen on (default {@code 127.0.0.1}, loopback only). */
        public Builder bindHost(String host) { this.bindHost = host; return this; }

        /** Port to listen on (default 25520; 0 picks a free port). */
        public Builder bindPort(int port) { this.bindPort = port; return this; }

        /** Host other nodes use to reach this one, a hostname or IP literal (default: the bind host). */
        public Builder canonicalHost(String host) { this.canonicalHost = host; return this; }

        /** Port other nodes use to reach this one (default: the bound port). */
        public Builder canonicalPort(int port) { this.canonicalPort = port; return this; }

        /**
         * Shared secret proven with HMAC-SHA256 in the handshake, 16 bytes or more (no default).
         * It authenticates peers; it gives no confidentiality: use TLS across untrusted networks.
         */
        public Builder secret(String value) {
            this.secret = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** The shared secret as bytes; see {@link #secret(String)}. */
        public Builder secret(byte[] value) { this.secret = value == null ? null : value.clone(); return this; }

        /** Whether to run without authentication (default false); must be set explicitly. */
        public Builder insecure(boolean value) { this.insecure = value; return this; }

        /**
         * Mutual TLS. The server context must require client certificates
         * ({@code ClientAuth.REQUIRE}); the client context presents this node's certificate. A
         * peer's certificate must carry its claimed host (or the name given by
         * {@link #tlsPeerIdentities}) as a subject alternative name.
         */
        public Builder tls(SslContext server, SslContext client) {
            this.serverSsl = Objects.requireNonNull(server, "server SslContext");
            this.clientSsl = Objects.requireNonNull(client, "client SslContext");
            return this;
        }

        /**
         * With mutual TLS: for each system name, the subject alternative name (DNS name or IP
         * literal) the certificate of a node of that system must carry, instead of the host that
         * node claims (default: none, the claimed host must be in the certificate). For a mapped
         * system the TLS layer's own check of the dialled host is replaced by this one.
         */
        public Builder tlsPeerIdentities(Map<String, String> systemToSubjectAltName) {
            this.tlsPeerIdentities.clear();
            this.tlsPeerIdentities.putAll(Objects.requireNonNull(systemToSubjectAltName, "systemToSubjectAltName"));
            return this;
        }

        /** Largest frame accepted or sent, checked before allocating: 1 KiB to 8 MiB (default 256 KiB). */
        public Builder maxFrameSize(int bytes) { this.maxFrameSize = bytes; return this; }

        /**
         * Bytes buffered per peer, a power of two at least 8 times the max frame size (default
         * 2 MiB). Allocated when the first message to that peer is sent, not when the peer
         * becomes known; a full buffer sends messages to dead letters as {@code outbound-overflow}.
         */
        public Builder outboundBufferSize(int bytes) { this.outboundBufferSize = bytes; return this; }

        /** Time a connection has to complete the handshake (default 5s). */
        public Builder handshakeTimeout(Duration d) { this.handshakeTimeout = d; return this; }

        /** A connection on which nothing arrives this long is closed (default 30s). */
        public Builder idleTimeout(Duration d) { this.idleTimeout = d; return this; }

        /** Inbound connections at once, handshaking or established (default 256). */
        public Builder maxConnections(int n) { this.maxConnections = n; return this; }

        /** Inbound connections that have not completed the handshake, in total (default 64). */
        public Builder maxPendingHandshakes(int n) { this.maxPendingHandshakes = n; return this; }

        /** Inbound connections that have not completed the handshake, per source IP address (default 8). */
        public Builder maxPendingHandshakesPerSource(int n) { this.maxPendingHandshakesPerSource = n; return this; }

        /**
         * Remote nodes this node keeps state for at once (default 256). Associations exist for
         * peers this node sends to and peers that completed a handshake; beyond the limit new
         * peers are refused ({@code association-limit}).
         */
        public Builder maxAssociations(int n) { this.maxAssociations = n; return this; }

        /**
         * An association with no connection, no traffic, no pending system messages and no
         * watches for this long (or one whose node is lost for this long) is removed with its
         * buffer and metrics (default 5 minutes). Refs to it keep working: they reconnect.
         */
        public Builder removeIdleAssociationAfter(Duration d) { this.removeIdleAssociationAfter = d; return this; }

        /** Longest actor path accepted from a peer, in characters (default 2048). */
        public Builder maxPathLength(int chars) { this.maxPathLength = chars; return this; }

        /** Most path elements below the root accepted from a peer (default 32). */
        public Builder maxPathDepth(int elements) { this.maxPathDepth = elements; return this; }

        /**
         * System messages (watch, unwatch, terminated) sent to one peer and not yet acknowledged
         * (default 4096). Overflow quarantines that incarnation of the peer: it is declared lost
         * and its handshakes are refused until it restarts.
         */
        public Builder maxUnackedSystemMessages(int n) { this.maxUnackedSystemMessages = n; return this; }

        /** Watches one peer may hold on this node's actors (default 4096); a watch beyond closes its connection. */
        public Builder maxInboundWatches(int n) { this.maxInboundWatches = n; return this; }

        /**
         * Messages queued for one peer while it is not connected (default 3072); further tells
         * go to dead letters as {@code outbound-overflow}.
         */
        public Builder maxQueuedMessages(int n) { this.maxQueuedMessages = n; return this; }

        /**
         * How long a message may wait in the outbound buffer (default 20s); older ones go to
         * dead letters as {@code outbound-expired} instead of being sent late.
         */
        public Builder maxQueueTime(Duration d) { this.maxQueueTime = d; return this; }

        /**
         * A connection stops reading while a local mailbox it delivers to holds more messages
         * than this (or a bounded mailbox is full), and resumes when it drained (default 100000).
         */
        public Builder inboundMailboxHighWatermark(int messages) { this.inboundMailboxHighWatermark = messages; return this; }

        /** Interval between heartbeats to each peer (default 1s). */
        public Builder heartbeatInterval(Duration d) { this.heartbeatInterval = d; return this; }

        /** Phi above which the failure detector declares a node lost (default 10). */
        public Builder phiThreshold(double phi) { this.phiThreshold = phi; return this; }

        /** Pause added to the mean heartbeat interval before phi rises (default 3s). */
        public Builder acceptableHeartbeatPause(Duration d) { this.acceptableHeartbeatPause = d; return this; }

        /** Floor of the heartbeat interval's standard deviation in the failure detector (default 100ms). */
        public Builder minHeartbeatStdDev(Duration d) { this.minHeartbeatStdDev = d; return this; }

        /** First and largest delay between reconnect attempts (default 100ms and 5s), doubling with ±20% jitter. */
        public Builder reconnectBackoff(Duration min, Duration max) {
            this.reconnectMinBackoff = min;
            this.reconnectMaxBackoff = max;
            return this;
        }

        /** Interval after which unacknowledged system messages are sent again (default 1s). */
        public Builder systemMessageResendInterval(Duration d) { this.systemMessageResendInterval = d; return this; }

        /** Paths and class names per connection and direction (default 65536); more is {@code compression-limit}. */
        public Builder maxCompressionEntries(int n) { this.maxCompressionEntries = n; return this; }

        /**
         * Bytes one peer (one association) may make this node hold (default 16 MiB, or twice
         * {@link #outboundBufferSize} if that is more): its outbound
         * buffer, the compression tables of its connections in both directions, the watches it
         * holds on local actors, the system messages it has not acknowledged, its pending failure
         * notices. What would go beyond closes the connection that asked ({@code memory-limit}) or,
         * for system messages, quarantines the incarnation. At least {@code outboundBufferSize}.
         */
        public Builder maxPeerMemory(long bytes) { this.maxPeerMemory = bytes; return this; }

        /**
         * Bytes all peers together may make this node hold (default 256 MiB, or {@code maxPeerMemory}
         * if that is more), the sum of what
         * {@link #maxPeerMemory} bounds per peer; beyond, the peer that asks is refused as above.
         * At least {@code maxPeerMemory}.
         */
        public Builder maxRemoteMemory(long bytes) { this.maxRemoteMemory = bytes; return this; }

        /** I/O threads (default 1). */
        public Builder ioThreads(int n) { this.ioThreads = n; return this; }

        /**
         * How long an I/O thread that ran out of work keeps polling before it sleeps (default 0: it
         * sleeps at once; epoll only; at most 1 ms). Polling saves the wake-up of the next hand-off
         * (a tell's drain, a peer's reply) at the price of a busy core meanwhile: worth it only on
         * machines with cores to spare. On a loaded 2-core machine it made things slower
         * (docs/remote-benchmarks.md).
         */
        public Builder ioIdleSpin(Duration d) { this.ioIdleSpin = Objects.requireNonNull(d); return this; }

        /**
         * The send buffer ({@code SO_SNDBUF}) asked of each outbound connection's socket, in bytes
         * (default 256 KiB; 0: none is asked and the kernel sizes the buffer itself, on Linux growing
         * it with the connection's bandwidth-delay product up to {@code net.ipv4.tcp_wmem}'s maximum,
         * 4 MiB by default, which a loopback or LAN connection reaches at once). Both size lanes of a
         * peer share its connection, and a small message waits behind every byte of large frames the
         * socket holds: beside 256 KiB frames at full speed on loopback, 256 KiB here instead of the
         * kernel's 4 MiB cut the small round trips' p99 from 50 to 87 ms to 13 to 34 ms and their p50
         * by half, large frames as fast (docs/remote-benchmarks.md, "The socket's send buffer"). The
         * buffer also bounds the bytes in flight, so a connection carries at most about twice this
         * many bytes per round-trip time (Linux doubles the value asked): about 500 MB/s at a round
         * trip of 1 ms, as within a data centre, but 5 MB/s at 100 ms. Across long-distance links set
         * 0, or a larger value. Between 16 KiB and 64 MiB, or 0.
         */
        public Builder socketSendBuffer(int bytes) { this.socketSendBuffer = bytes; return this; }

        /** Whether to use epoll when available (default true). */
        public Builder nativeTransport(boolean value) { this.nativeTransport = value; return this; }

        /** The serializers (default: built-ins only). */
        public Builder serializers(SerializerRegistry registry) { this.serializers = Objects.requireNonNull(registry); return this; }

        /**
         * @return the settings
         * @throws InvalidSettingException naming the builder method whose value is refused
         */
        public RemoteSettings build() {
            final boolean hasSecret = secret != null && secret.length > 0;
            if (!hasSecret && serverSsl == null && !insecure) {
                throw new InvalidSettingException(PREFIX + "secret", "must be set (or tls(...) for mutual TLS): the transport has "
                    + "no authentication; set insecure(true) to allow that explicitly");
            }
            if (hasSecret && secret.length < 16) {
                throw new InvalidSettingException(PREFIX + "secret", "must be at least 16 bytes, is " + secret.length);
            }
            if (hasSecret && serverSsl != null) {
                throw new InvalidSettingException(PREFIX + "secret", "a secret and tls(...) are exclusive: choose one");
            }
            if (!tlsPeerIdentities.isEmpty() && serverSsl == null) {
                throw new InvalidSettingException(PREFIX + "tlsPeerIdentities", "only applies with tls(...)");
            }
            for (Map.Entry<String, String> e : tlsPeerIdentities.entrySet()) {
                if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null || !HostNames.isValid(e.getValue())) {
                    throw new InvalidSettingException(PREFIX + "tlsPeerIdentities", e.getKey(),
                        "must map a system name to a DNS name or IP literal: " + e.getValue());
                }
            }
            if (bindHost == null || bindHost.isEmpty()) {
                throw new InvalidSettingException(PREFIX + "bindHost", "must not be empty");
            }
            if (canonicalHost != null && !HostNames.isValid(canonicalHost)) {
                throw new InvalidSettingException(PREFIX + "canonicalHost", "must be a hostname or IP literal: " + canonicalHost);
            }
            if (canonicalHost == null && !HostNames.isValid(bindHost)) {
                throw new InvalidSettingException(PREFIX + "bindHost", "must be a hostname or IP literal when no canonical host is set: " + bindHost);
            }
            checkPort("bindPort", bindPort);
            if (canonicalPort != -1) {
                checkPort("canonicalPort", canonicalPort);
            }
            if (maxFrameSize < 1024 || maxFrameSize > (8 << 20)) {
                throw new InvalidSettingException(PREFIX + "maxFrameSize", "must be between 1 KiB and 8 MiB: " + maxFrameSize);
            }
            if (Integer.bitCount(outboundBufferSize) != 1 || outboundBufferSize < 8 * maxFrameSize) {
                // The ring buffer's largest record is an eighth of its capacity.
                throw new InvalidSettingException(PREFIX + "outboundBufferSize", "must be a power of two and at least 8 times "
                    + "maxFrameSize (" + maxFrameSize + "): " + outboundBufferSize);
            }
            positive("handshakeTimeout", handshakeTimeout);
            positive("idleTimeout", idleTimeout);
            positive("heartbeatInterval", heartbeatInterval);
            positive("acceptableHeartbeatPause", acceptableHeartbeatPause);
            positive("minHeartbeatStdDev", minHeartbeatStdDev);
            positive("reconnectBackoff", reconnectMinBackoff);
            positive("reconnectBackoff", reconnectMaxBackoff);
            positive("systemMessageResendInterval", systemMessageResendInterval);
            positive("removeIdleAssociationAfter", removeIdleAssociationAfter);
            positive("maxQueueTime", maxQueueTime);
            if (idleTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
                throw new InvalidSettingException(PREFIX + "idleTimeout", "must be at least twice heartbeatInterval ("
                    + heartbeatInterval + "): " + idleTimeout);
            }
            if (reconnectMaxBackoff.compareTo(reconnectMinBackoff) < 0) {
                throw new InvalidSettingException(PREFIX + "reconnectBackoff", "the maximum (" + reconnectMaxBackoff
                    + ") must not be below the minimum (" + reconnectMinBackoff + ")");
            }
            atLeast("maxConnections", maxConnections, 1);
            atLeast("maxPendingHandshakes", maxPendingHandshakes, 1);
            atLeast("maxPendingHandshakesPerSource", maxPendingHandshakesPerSource, 1);
            atLeast("maxAssociations", maxAssociations, 1);
            atLeast("maxPathLength", maxPathLength, 64);
            atLeast("maxPathDepth", maxPathDepth, 2);
            atLeast("maxUnackedSystemMessages", maxUnackedSystemMessages, 16);
            atLeast("maxInboundWatches", maxInboundWatches, 1);
            atLeast("maxQueuedMessages", maxQueuedMessages, 1);
            atLeast("inboundMailboxHighWatermark", inboundMailboxHighWatermark, 1);
            if (!(phiThreshold > 0)) {
                throw new InvalidSettingException(PREFIX + "phiThreshold", "must be positive: " + phiThreshold);
            }
            atLeast("maxCompressionEntries", maxCompressionEntries, 16);
            if (peerMemory() < outboundBufferSize) {
                throw new InvalidSettingException(PREFIX + "maxPeerMemory", "must be at least outboundBufferSize ("
                    + outboundBufferSize + "): " + maxPeerMemory);
            }
            if (remoteMemory() < peerMemory()) {
                throw new InvalidSettingException(PREFIX + "maxRemoteMemory", "must be at least maxPeerMemory ("
                    + peerMemory() + "): " + maxRemoteMemory);
            }
            atLeast("ioThreads", ioThreads, 1);
            if (ioIdleSpin.isNegative() || ioIdleSpin.compareTo(Duration.ofMillis(1)) > 0) {
                throw new InvalidSettingException(PREFIX + "ioIdleSpin", "must be between 0 and 1 ms: " + ioIdleSpin);
            }
            if (socketSendBuffer != 0 && (socketSendBuffer < 16 << 10 || socketSendBuffer > 64 << 20)) {
                throw new InvalidSettingException(PREFIX + "socketSendBuffer", "must be 0 (the kernel's own sizing) or between 16 KiB "
                    + "and 64 MiB: " + socketSendBuffer);
            }
            return new RemoteSettings(this);
        }

        private long peerMemory() {
            return maxPeerMemory >= 0 ? maxPeerMemory : Math.max(16L << 20, 2L * outboundBufferSize);
        }

        private long remoteMemory() {
            return maxRemoteMemory >= 0 ? maxRemoteMemory : Math.max(256L << 20, peerMemory());
        }

        private static void atLeast(String setting, int value, int min) {
            if (value < min) {
                throw new InvalidSettingException(PREFIX + setting, "must be at least " + min + ": " + value);
            }
        }

        private static void checkPort(String setting, int port) {
            if (port < 0 || port > 65535) {
                throw new InvalidSettingException(PREFIX + setting, "must be between 0 and 65535: " + port);
            }
        }

        private static void positive(String setting, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new InvalidSettingException(PREFIX + setting, "must be a positive duration: " + d);
            }
        }
    }
}
