package dev.troupe.remote.internal;

import java.nio.charset.StandardCharsets;

/**
 * Constants of wire protocol version 4; {@code docs/protocol.md} is the specification (its tables are
 * checked against the encoders by the golden-frame tests).
 *
 * <pre>
 * connection start (client to server, once):
 *   0        4
 *   +--------+
 *   | "TRPE" |   magic, 4 ASCII bytes
 *   +--------+
 * then frames, both directions, all integers big-endian:
 *   0                4        5
 *   +----------------+--------+-----------------------+
 *   | length (int32) | type   | body (length - 1)     |
 *   +----------------+--------+-----------------------+
 *   length counts the type byte and the body: 1 .. maxFrameSize
 * </pre>
 */
final class Protocol {

    private Protocol() {
    }

    /** "TRPE", sent once by the connecting side before its first frame. */
    static final int MAGIC = 0x54525045;
    /**
     * The only version this code speaks. Version 3 (no incarnation keys: a UID was a bearer
     * token), version 2 (no USER flags, no FAILURE) and version 1 (proofs over nonces and UIDs
     * only, the accepting side proving first) are refused with {@code protocol-version}.
     */
    static final int VERSION = 4;

    /** Bytes of the length prefix. */
    static final int LENGTH_FIELD = 4;
    /** Bytes of length prefix and type together, the frame header. */
    static final int HEADER = 5;

    /** Frames before the handshake completes are capped at this size, whatever maxFrameSize says. */
    static final int MAX_HANDSHAKE_FRAME = 1024;

    static final byte HELLO = 0x01;
    static final byte HELLO_REPLY = 0x02;
    static final byte AUTH = 0x03;
    static final byte ADVERTISE = 0x04;
    static final byte USER = 0x05;
    static final byte SYSTEM = 0x06;
    static final byte SYSTEM_ACK = 0x07;
    static final byte HEARTBEAT = 0x08;
    static final byte HEARTBEAT_REPLY = 0x09;
    static final byte CLOSE = 0x0A;
    static final byte AUTH_REPLY = 0x0B;
    /** A message could not be delivered: the receiving node tells the sending node (version 3). */
    static final byte FAILURE = 0x0C;
    /**
     * The receiver of large USER frames grants the sender window space back once it delivered them
     * (body {@code int32 bytes}, 1 or more, at most what is outstanding).
     */
    static final byte GRANT = 0x0D;
    /** Highest known type; anything above, or 0, is unknown. */
    static final byte MAX_TYPE = GRANT;

    /**
     * USER frames whose body is longer than this are large: they count against the receiver's window
     * (header and body), and the receiver grants them back with GRANT once delivered. A record of the
     * sender's small lane never has such a body, so small frames are never held by the window.
     */
    static final int WINDOWED_BODY = 4096;

    /** Authentication modes carried in HELLO and HELLO_REPLY. */
    static final int AUTH_INSECURE = 0;
    static final int AUTH_HMAC = 1;
    static final int AUTH_TLS = 2;

    /** Nonce and proof sizes. */
    static final int NONCE_LENGTH = 16;
    static final int PROOF_LENGTH = 32;

    /** ADVERTISE kinds. */
    static final int KIND_ACTOR_PATH = 1;
    static final int KIND_MANIFEST = 2;

    /**
     * Ids with this bit name one of {@link #EPHEMERAL_SLOTS} reusable slots instead of a table
     * entry: a sender advertises a temporary ref (an ask's reply-to ref, {@code /temp/...}) into the
     * next slot in turn, each time it sends one, and the receiver's slot takes the newest path. A
     * slot is redefined only in ring order after every message that used its old meaning, so a
     * node asks a peer any number of times with a bounded table on both sides.
     */
    static final int EPHEMERAL_ID = 0x4000_0000;
    /** Slots for temporary refs per direction of an association (a power of two). */
    static final int EPHEMERAL_SLOTS = 1024;

    /** SYSTEM kinds. */
    static final int SYS_WATCH = 1;
    static final int SYS_UNWATCH = 2;
    static final int SYS_DEATH_WATCH_NOTIFICATION = 3;

    /** Largest system-message sequence number a peer may use or announce (far from overflow). */
    static final long MAX_SYSTEM_SEQ = 1L << 62;

    /** CLOSE reasons. */
    static final int CLOSE_SHUTDOWN = 1;

    /**
     * USER frame body layout:
     * <pre>
     *   0               4               8               12      13
     *   +---------------+---------------+---------------+-------+----------------+---------+-----------+
     *   | recipient id  | serializer id | manifest id   | flags | [header block] | payload | [ask ref] |
     *   +---------------+---------------+---------------+-------+----------------+---------+-----------+
     *                                                            if FLAG_HEADERS            if FLAG_ASK
     *   header block: uint16 length n (1 .. MAX_HEADER_BLOCK), then n bytes of entries,
     *                 each uint8 key length (1..), ASCII key, uint16 value length, value bytes
     *   ask ref:      int32, the id of the ask's reply-to ref (advertised like any ref)
     * </pre>
     * Other flag bits are refused ({@code malformed-frame}). A frame without flags is the
     * version 2 layout.
     */
    static final int USER_RECIPIENT_OFFSET = 0;
    static final int USER_SERIALIZER_OFFSET = 4;
    static final int USER_MANIFEST_OFFSET = 8;
    static final int USER_FLAGS_OFFSET = 12;
    static final int USER_PAYLOAD_OFFSET = 13;

    /** USER flag: the frame ends with the int32 id of the ask's reply-to ref, so a failure can fail the ask. */
    static final int FLAG_ASK = 0x01;
    /** USER flag: a header block (length-prefixed entries, such as a W3C traceparent) precedes the payload. */
    static final int FLAG_HEADERS = 0x02;
    /** Every flag this version knows. */
    static final int KNOWN_FLAGS = FLAG_ASK | FLAG_HEADERS;
    /** Bytes of the ask trailer. */
    static final int ASK_TRAILER = 4;
    /** Largest header block (its entries, after the uint16 length). */
    static final int MAX_HEADER_BLOCK = 1024;
    /** Most entries in a header block. */
    static final int MAX_HEADER_ENTRIES = 8;

    /**
     * FAILURE reasons, what the receiving node could not do with a USER frame. The body is
     * {@code uint8 reason, int32 ask ref id (0: a tell), str recipient path, str message type}.
     */
    static final int FAILURE_UNKNOWN_RECIPIENT = 1;
    static final int FAILURE_TYPE_MISMATCH = 2;
    static final int FAILURE_NO_SERIALIZER = 3;
    static final int FAILURE_DESERIALIZATION = 4;
    /** At most this many UTF-8 bytes of each FAILURE text are sent and kept. */
    static final int MAX_FAILURE_TEXT = 512;

    /** Labels mixed into the HMAC proofs so a server proof can never pass as a client proof. */
    static final byte[] SERVER_LABEL = "troupe-v2-server".getBytes(StandardCharsets.US_ASCII);
    static final byte[] CLIENT_LABEL = "troupe-v2-client".getBytes(StandardCharsets.US_ASCII);
    /** Labels of the incarnation-key signatures (the accepting side's in HELLO_REPLY, the connecting side's in AUTH). */
    static final byte[] SERVER_KEY_LABEL = "troupe-v4-server-key".getBytes(StandardCharsets.US_ASCII);
    static final byte[] CLIENT_KEY_LABEL = "troupe-v4-client-key".getBytes(StandardCharsets.US_ASCII);

    /**
     * @param type a frame type byte
     * @return a short name for logs
     */
    static String typeName(int type) {
        switch (type) {
            case HELLO: return "HELLO";
            case HELLO_REPLY: return "HELLO_REPLY";
            case AUTH: return "AUTH";
            case ADVERTISE: return "ADVERTISE";
            case USER: return "USER";
            case SYSTEM: return "SYSTEM";
            case SYSTEM_ACK: return "SYSTEM_ACK";
            case HEARTBEAT: return "HEARTBEAT";
            case HEARTBEAT_REPLY: return "HEARTBEAT_REPLY";
            case CLOSE: return "CLOSE";
            case AUTH_REPLY: return "AUTH_REPLY";
            case FAILURE: return "FAILURE";
            case GRANT: return "GRANT";
            default: return "0x" + Integer.toHexString(type & 0xFF);
        }
    }
}
