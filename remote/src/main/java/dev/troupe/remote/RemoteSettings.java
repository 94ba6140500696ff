package dev.troupe.remote;

import io.netty.handler.ssl.SslContext;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link RemoteTransport}. Build with {@link #builder()}; {@link Builder#build()}
 * validates and names the offending setting in its {@code troupe.remote.*} property form, so a
 * Spring starter can pass the message through unchanged.
 *
 * <p>Authentication is required: either an HMAC shared secret ({@code troupe.remote.secret}),
 * or mutual TLS (server and client {@link SslContext}s, which the starter builds from a Spring
 * SSL bundle), or an explicit {@code troupe.remote.insecure=true}.
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
    private final int maxFrameSize;
    private final int outboundBufferSize;
    private final Duration handshakeTimeout;
    private final Duration idleTimeout;
    private final int maxConnections;
    private final Duration heartbeatInterval;
    private final double phiThreshold;
    private final Duration acceptableHeartbeatPause;
    private final Duration minHeartbeatStdDev;
    private final Duration reconnectMinBackoff;
    private final Duration reconnectMaxBackoff;
    private final Duration systemMessageResendInterval;
    private final int maxCompressionEntries;
    private final int ioThreads;
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
        this.maxFrameSize = b.maxFrameSize;
        this.outboundBufferSize = b.outboundBufferSize;
        this.handshakeTimeout = b.handshakeTimeout;
        this.idleTimeout = b.idleTimeout;
        this.maxConnections = b.maxConnections;
        this.heartbeatInterval = b.heartbeatInterval;
        this.phiThreshold = b.phiThreshold;
        this.acceptableHeartbeatPause = b.acceptableHeartbeatPause;
        this.minHeartbeatStdDev = b.minHeartbeatStdDev;
        this.reconnectMinBackoff = b.reconnectMinBackoff;
        this.reconnectMaxBackoff = b.reconnectMaxBackoff;
        this.systemMessageResendInterval = b.systemMessageResendInterval;
        this.maxCompressionEntries = b.maxCompressionEntries;
        this.ioThreads = b.ioThreads;
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
    public int maxFrameSize() { return maxFrameSize; }
    public int outboundBufferSize() { return outboundBufferSize; }
    public Duration handshakeTimeout() { return handshakeTimeout; }
    public Duration idleTimeout() { return idleTimeout; }
    public int maxConnections() { return maxConnections; }
    public Duration heartbeatInterval() { return heartbeatInterval; }
    public double phiThreshold() { return phiThreshold; }
    public Duration acceptableHeartbeatPause() { return acceptableHeartbeatPause; }
    public Duration minHeartbeatStdDev() { return minHeartbeatStdDev; }
    public Duration reconnectMinBackoff() { return reconnectMinBackoff; }
    public Duration reconnectMaxBackoff() { return reconnectMaxBackoff; }
    public Duration systemMessageResendInterval() { return systemMessageResendInterval; }
    public int maxCompressionEntries() { return maxCompressionEntries; }
    public int ioThreads() { return ioThreads; }
    public boolean nativeTransport() { return nativeTransport; }
    public SerializerRegistry serializers() { return serializers; }

    /** Builds {@link RemoteSettings}; not thread-safe. Each setter names its property. */
    public static final class Builder {
        private String bindHost = "127.0.0.1";
        private int bindPort = 25520;
        private String canonicalHost;
        private int canonicalPort = -1;
        private byte[] secret;
        private boolean insecure;
        private SslContext serverSsl;
        private SslContext clientSsl;
        private int maxFrameSize = 256 * 1024;
        private int outboundBufferSize = 2 << 20;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private int maxConnections = 256;
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private double phiThreshold = 10.0;
        private Duration acceptableHeartbeatPause = Duration.ofSeconds(3);
        private Duration minHeartbeatStdDev = Duration.ofMillis(100);
        private Duration reconnectMinBackoff = Duration.ofMillis(100);
        private Duration reconnectMaxBackoff = Duration.ofSeconds(5);
        private Duration systemMessageResendInterval = Duration.ofSeconds(1);
        private int maxCompressionEntries = 65_536;
        private int ioThreads = 1;
        private boolean nativeTransport = true;
        private SerializerRegistry serializers = SerializerRegistry.defaults();

        private Builder() {
        }

        /** {@code troupe.remote.bind-host}: address to listen on (default 127.0.0.1, loopback only). */
        public Builder bindHost(String host) { this.bindHost = host; return this; }

        /** {@code troupe.remote.bind-port}: port to listen on (default 25520; 0 picks a free port). */
        public Builder bindPort(int port) { this.bindPort = port; return this; }

        /** {@code troupe.remote.canonical-host}: host other nodes use to reach this one (default: the bind host). */
        public Builder canonicalHost(String host) { this.canonicalHost = host; return this; }

        /** {@code troupe.remote.canonical-port}: port other nodes use (default: the bound port). */
        public Builder canonicalPort(int port) { this.canonicalPort = port; return this; }

        /** {@code troupe.remote.secret}: shared secret proven with HMAC-SHA256 in the handshake (16 bytes or more). */
        public Builder secret(String value) {
            this.secret = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** {@code troupe.remote.secret} as bytes. */
        public Builder secret(byte[] value) { this.secret = value == null ? null : value.clone(); return this; }

        /** {@code troupe.remote.insecure}: whether to run without authentication; must be set explicitly. */
        public Builder insecure(boolean value) { this.insecure = value; return this; }

        /**
         * {@code troupe.remote.ssl.bundle}: mutual TLS. The server context should require client
         * certificates ({@code ClientAuth.REQUIRE}); the client context presents this node's certificate.
         */
        public Builder tls(SslContext server, SslContext client) {
            this.serverSsl = Objects.requireNonNull(server, "server SslContext");
            this.clientSsl = Objects.requireNonNull(client, "client SslContext");
            return this;
        }

        /** {@code troupe.remote.max-frame-size}: largest frame accepted, checked before allocating (default 256 KiB). */
        public Builder maxFrameSize(int bytes) { this.maxFrameSize = bytes; return this; }

        /** {@code troupe.remote.outbound-buffer-size}: bytes buffered per peer, a power of two, at least 8 times max-frame-size (default 2 MiB). */
        public Builder outboundBufferSize(int bytes) { this.outboundBufferSize = bytes; return this; }

        /** {@code troupe.remote.handshake-timeout} (default 5s). */
        public Builder handshakeTimeout(Duration d) { this.handshakeTimeout = d; return this; }

        /** {@code troupe.remote.idle-timeout}: a connection silent this long is closed (default 30s). */
        public Builder idleTimeout(Duration d) { this.idleTimeout = d; return this; }

        /** {@code troupe.remote.max-connections}: inbound connections at once (default 256). */
        public Builder maxConnections(int n) { this.maxConnections = n; return this; }

        /** {@code troupe.remote.heartbeat-interval} (default 1s). */
        public Builder heartbeatInterval(Duration d) { this.heartbeatInterval = d; return this; }

        /** {@code troupe.remote.failure-detector.threshold}: phi above which a node is lost (default 10). */
        public Builder phiThreshold(double phi) { this.phiThreshold = phi; return this; }

        /** {@code troupe.remote.failure-detector.acceptable-heartbeat-pause} (default 3s). */
        public Builder acceptableHeartbeatPause(Duration d) { this.acceptableHeartbeatPause = d; return this; }

        /** {@code troupe.remote.failure-detector.min-std-deviation} (default 100ms). */
        public Builder minHeartbeatStdDev(Duration d) { this.minHeartbeatStdDev = d; return this; }

        /** {@code troupe.remote.reconnect.min-backoff} and {@code max-backoff} (default 100ms and 5s). */
        public Builder reconnectBackoff(Duration min, Duration max) {
            this.reconnectMinBackoff = min;
            this.reconnectMaxBackoff = max;
            return this;
        }

        /** {@code troupe.remote.system-message-resend-interval} (default 1s). */
        public Builder systemMessageResendInterval(Duration d) { this.systemMessageResendInterval = d; return this; }

        /** {@code troupe.remote.max-compression-entries}: paths and class names per association and direction (default 65536). */
        public Builder maxCompressionEntries(int n) { this.maxCompressionEntries = n; return this; }

        /** {@code troupe.remote.io-threads} (default 1). */
        public Builder ioThreads(int n) { this.ioThreads = n; return this; }

        /** {@code troupe.remote.native-transport}: whether to use epoll when available (default true). */
        public Builder nativeTransport(boolean value) { this.nativeTransport = value; return this; }

        /** The serializers; built-ins only by default. */
        public Builder serializers(SerializerRegistry registry) { this.serializers = Objects.requireNonNull(registry); return this; }

        /**
         * @return the settings
         * @throws IllegalArgumentException naming the {@code troupe.remote.*} property that is wrong
         */
        public RemoteSettings build() {
            final boolean hasSecret = secret != null && secret.length > 0;
            if (!hasSecret && serverSsl == null && !insecure) {
                throw new IllegalArgumentException("troupe.remote.secret must be set (or troupe.remote.ssl.bundle for mutual TLS): "
                    + "remote is enabled without authentication; set troupe.remote.insecure=true to allow that explicitly");
            }
            if (hasSecret && secret.length < 16) {
                throw new IllegalArgumentException("troupe.remote.secret must be at least 16 bytes long");
            }
            if (hasSecret && serverSsl != null) {
                throw new IllegalArgumentException("troupe.remote.secret and troupe.remote.ssl.bundle are exclusive: choose one");
            }
            if (bindHost == null || bindHost.isEmpty()) {
                throw new IllegalArgumentException("troupe.remote.bind-host must not be empty");
            }
            checkPort("troupe.remote.bind-port", bindPort);
            if (canonicalPort != -1) {
                checkPort("troupe.remote.canonical-port", canonicalPort);
            }
            if (maxFrameSize < 1024 || maxFrameSize > (8 << 20)) {
                throw new IllegalArgumentException("troupe.remote.max-frame-size must be between 1 KiB and 8 MiB: " + maxFrameSize);
            }
            if (Integer.bitCount(outboundBufferSize) != 1 || outboundBufferSize < 8 * maxFrameSize) {
                // The ring buffer's largest record is an eighth of its capacity.
                throw new IllegalArgumentException("troupe.remote.outbound-buffer-size must be a power of two and at least 8 times "
                    + "troupe.remote.max-frame-size: " + outboundBufferSize);
            }
            positive("troupe.remote.handshake-timeout", handshakeTimeout);
            positive("troupe.remote.idle-timeout", idleTimeout);
            positive("troupe.remote.heartbeat-interval", heartbeatInterval);
            positive("troupe.remote.failure-detector.acceptable-heartbeat-pause", acceptableHeartbeatPause);
            positive("troupe.remote.failure-detector.min-std-deviation", minHeartbeatStdDev);
            positive("troupe.remote.reconnect.min-backoff", reconnectMinBackoff);
            positive("troupe.remote.reconnect.max-backoff", reconnectMaxBackoff);
            positive("troupe.remote.system-message-resend-interval", systemMessageResendInterval);
            if (idleTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("troupe.remote.idle-timeout must be at least twice troupe.remote.heartbeat-interval");
            }
            if (reconnectMaxBackoff.compareTo(reconnectMinBackoff) < 0) {
                throw new IllegalArgumentException("troupe.remote.reconnect.max-backoff must not be below min-backoff");
            }
            if (maxConnections < 1) {
                throw new IllegalArgumentException("troupe.remote.max-connections must be at least 1: " + maxConnections);
            }
            if (phiThreshold <= 0) {
                throw new IllegalArgumentException("troupe.remote.failure-detector.threshold must be positive: " + phiThreshold);
            }
            if (maxCompressionEntries < 16) {
                throw new IllegalArgumentException("troupe.remote.max-compression-entries must be at least 16: " + maxCompressionEntries);
            }
            if (ioThreads < 1) {
                throw new IllegalArgumentException("troupe.remote.io-threads must be at least 1: " + ioThreads);
            }
            return new RemoteSettings(this);
        }

        private static void checkPort(String property, int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException(property + " must be between 0 and 65535: " + port);
            }
        }

        private static void positive(String property, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(property + " must be a positive duration: " + d);
            }
        }
    }
}
