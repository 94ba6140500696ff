package dev.troupe.remote;

/**
 * Why the transport refused bytes from a peer. A closed set, so the {@code reason} tag of the
 * rejected-frames meter has a bounded number of values. All but {@link #UNKNOWN_SERIALIZER},
 * {@link #UNKNOWN_MANIFEST} and {@link #TYPE_MISMATCH} close the connection that sent them;
 * those three drop only the one message.
 */
public enum FrameRejection {
    /** The connection did not start with the protocol's magic bytes (garbage, HTTP, TLS). */
    BAD_MAGIC("bad-magic"),
    /** A length prefix of zero or below. */
    BAD_LENGTH("bad-length"),
    /** A length prefix above the maximum frame size (checked before allocating). */
    FRAME_TOO_LARGE("frame-too-large"),
    /** The connection ended in the middle of a frame. */
    TRUNCATED("truncated"),
    /** A frame type this version does not know. */
    UNKNOWN_FRAME_TYPE("unknown-frame-type"),
    /** A known frame type in the wrong state, such as a user message before the handshake. */
    UNEXPECTED_FRAME("unexpected-frame"),
    /** A frame whose body does not parse. */
    MALFORMED_FRAME("malformed-frame"),
    /** The handshake named a protocol version this node does not speak. */
    PROTOCOL_VERSION("protocol-version"),
    /** The handshake named another system than this one, or the reply came from another system. */
    WRONG_SYSTEM("wrong-system"),
    /** The HMAC proof did not match, or the peer's authentication mode differs. */
    AUTH_FAILED("auth-failed"),
    /** The peer did not finish the handshake in time. */
    HANDSHAKE_TIMEOUT("handshake-timeout"),
    /** The peer sent nothing (not even a heartbeat) for the idle timeout. */
    IDLE_TIMEOUT("idle-timeout"),
    /** The node already had its maximum number of inbound connections. */
    TOO_MANY_CONNECTIONS("too-many-connections"),
    /** A user message named a serializer id this node does not have; only that message is dropped. */
    UNKNOWN_SERIALIZER("unknown-serializer"),
    /** A user message named a class that is not on this node's allow-list; only that message is dropped. */
    UNKNOWN_MANIFEST("unknown-manifest"),
    /** The peer advertised more compressed ids than allowed. */
    COMPRESSION_LIMIT("compression-limit"),
    /**
     * The handshake claimed an identity this node refuses: UID 0, this node's own UID or
     * address, a host that is not a hostname or IP literal, a bad system name or port.
     */
    INVALID_IDENTITY("invalid-identity"),
    /** Too many connections had not completed the handshake, in total or from the connection's source address. */
    TOO_MANY_HANDSHAKES("too-many-handshakes"),
    /** An actor path from the peer was longer or deeper than the limits. */
    PATH_TOO_LONG("path-too-long"),
    /** A system-message sequence number or acknowledgement that the protocol cannot produce. */
    INVALID_SEQUENCE("invalid-sequence"),
    /** A window grant for more bytes of large frames than were sent and not yet granted back. */
    INVALID_GRANT("invalid-grant"),
    /** The node already kept state for its maximum number of remote nodes. */
    ASSOCIATION_LIMIT("association-limit"),
    /** The peer tried to hold more watches on this node's actors than allowed. */
    WATCH_LIMIT("watch-limit"),
    /** The peer's incarnation was quarantined (it let too many system messages go unacknowledged). */
    QUARANTINED("quarantined"),
    /**
     * What the peer made this node hold (compression tables, watches, unacknowledged system
     * messages, its outbound buffer) would exceed its byte budget or the node's
     * ({@code maxPeerMemory}, {@code maxRemoteMemory}).
     */
    MEMORY_LIMIT("memory-limit"),
    /** A user message whose class is not the recipient's declared message type; only that message is dropped. */
    TYPE_MISMATCH("type-mismatch"),
    /** Handling the peer's input failed unexpectedly; the connection is closed and nothing more is read from it. */
    INTERNAL_ERROR("internal-error");

    private final String tag;

    FrameRejection(String tag) {
        this.tag = tag;
    }

    /** @return the reason as a lowercase tag value, such as {@code frame-too-large} */
    public String tag() {
        return tag;
    }

    /** @return whether this rejection closes the connection (true for all but per-message ones) */
    public boolean closesConnection() {
        return this != UNKNOWN_SERIALIZER && this != UNKNOWN_MANIFEST && this != TYPE_MISMATCH;
    }

    @Override
    public String toString() {
        return tag;
    }
}
