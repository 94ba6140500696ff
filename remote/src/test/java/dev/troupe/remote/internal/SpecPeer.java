package dev.troupe.remote.internal;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A protocol peer written from {@code docs/protocol.md} alone: every frame it sends or reads is laid
 * out by the document's tables ({@link ProtocolSpec}), and its proofs and signatures follow the
 * document's formulas with the JDK's HMAC-SHA256 and Ed25519; nothing of the transport's encoders,
 * {@code Hmac} or {@code IncarnationKey} is used. So whatever this peer gets through, the document
 * was enough for. It holds the shared secret; the hostile-peer suite makes it do what a hostile
 * member would.
 *
 * <p>By default it listens at the address it claims and answers the node's dial-back there as a
 * node would (a signed HELLO_REPLY, AUTH_REPLY with the server proof), then reads what the node
 * sends, answering heartbeats and nothing else: it never acknowledges a system message. A peer
 * that claims an address it does not own does not listen.
 */
final class SpecPeer implements AutoCloseable {

    static final ProtocolSpec SPEC = ProtocolSpec.load();
    private static final SecureRandom RANDOM = new SecureRandom();

    final String system;
    final String host;
    final int port;
    final long uid;
    final byte[] publicKey;
    private final KeyPair keys;
    private final byte[] secret;
    private final int nodePort;
    private final InetAddress source;
    private final ServerSocket listener;
    private final List<Socket> accepted = new ArrayList<>();

    Socket socket;
    /** Read timeout of the connections it opens. */
    int timeoutMillis = 5000;
    DataInputStream in;
    OutputStream out;
    /** The node's HELLO_REPLY fields from the last handshake, and its AUTH_REPLY's (null if refused). */
    Map<String, Object> helloReply;
    Map<String, Object> authReply;

    /** A member at its own address ({@code system@127.0.0.1:<its listener>}) that answers dial-backs. */
    static SpecPeer listening(String system, int nodePort, byte[] secret) throws IOException {
        return new SpecPeer(system, null, 0, nodePort, null, secret, ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
    }

    /** A member connecting from {@code source} (127.0.0.x) that answers dial-backs at its own address. */
    static SpecPeer listeningFrom(String system, int nodePort, InetAddress source, byte[] secret) throws IOException {
        return new SpecPeer(system, null, 0, nodePort, source, secret, ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
    }

    /** A member claiming {@code system@host:port}, someone else's address, with {@code uid}: it does not listen there. */
    static SpecPeer claiming(String system, String host, int port, long uid, int nodePort, byte[] secret) throws IOException {
        return new SpecPeer(system, host, port, nodePort, null, secret, uid);
    }

    private SpecPeer(String system, String host, int port, int nodePort, InetAddress source, byte[] secret, long uid) throws IOException {
        this.system = system;
        this.uid = uid;
        this.secret = secret;
        this.nodePort = nodePort;
        this.source = source;
        try {
            this.keys = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        final byte[] der = keys.getPublic().getEncoded();
        this.publicKey = Arrays.copyOfRange(der, der.length - 32, der.length); // RFC 8032's 32 bytes end the SubjectPublicKeyInfo
        if (host == null) {
            this.listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
            this.host = "127.0.0.1";
            this.port = listener.getLocalPort();
            final Thread t = new Thread(this::acceptLoop, "spec-peer-" + system + "-" + this.port);
            t.setDaemon(true);
            t.start();
        } else {
            this.listener = null;
            this.host = host;
            this.port = port;
        }
    }

    // ---------------------------------------------------------------- the connecting side

    /** Opens a new connection to the node (closing any earlier one). */
    SpecPeer connect() throws IOException {
        if (socket != null) {
            socket.close();
        }
        socket = source == null ? new Socket("127.0.0.1", nodePort) : new Socket(InetAddress.getByName("127.0.0.1"), nodePort, source, 0);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(timeoutMillis);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        return this;
    }

    /** @return the magic bytes, as the document's Framing table lays them out */
    static byte[] magic() {
        return SPEC.encode("MAGIC", "magic", "TRPE");
    }

    /** @return this peer's HELLO to the node's {@code toSystem}, with the claim and key given */
    byte[] hello(String toSystem, long claimedUid, String claimedHost, int claimedPort, byte[] key, byte[] nonce) {
        return SPEC.encode("HELLO", "version", 4, "auth", 1, "uid", claimedUid, "nonce", nonce, "fromSystem", system,
            "fromHost", claimedHost, "fromPort", claimedPort, "toSystem", toSystem, "toHost", "127.0.0.1", "toPort", nodePort,
            "key", key);
    }

    /** The whole handshake with this peer's own claim; {@link #authReply} is null if the node refused AUTH. */
    SpecPeer handshake(String toSystem) throws IOException {
        return handshake(hello(toSystem, uid, host, port, publicKey, nonce()));
    }

    /**
     * Runs the handshake from the given HELLO frame: reads HELLO_REPLY and checks its signature, sends
     * AUTH (proof and signature over the transcript, by the document's formulas), reads AUTH_REPLY
     * and checks the server proof.
     */
    SpecPeer handshake(byte[] helloFrame) throws IOException {
        connect();
        send(concat(magic(), helloFrame));
        final byte[] reply = readFrame();
        if (reply[0] != 0x02) {
            throw new IOException("expected HELLO_REPLY, got type " + reply[0]);
        }
        helloReply = SPEC.parse("HELLO_REPLY", reply, 1);
        final byte[] hello = Arrays.copyOfRange(helloFrame, 4, helloFrame.length);
        if (!verify((byte[]) helloReply.get("key"), (byte[]) helloReply.get("signature"), "troupe-v4-server-key", hello,
            Arrays.copyOf(reply, reply.length - 64))) {
            throw new IOException("the node's HELLO_REPLY signature does not verify by the document's formula");
        }
        final byte[] proof = hmac("troupe-v2-client", hello, reply, null, 0);
        send(SPEC.encode("AUTH", "proof", proof, "signature", sign("troupe-v4-client-key", hello, reply)));
        authReply = null;
        try {
            final byte[] r = readFrame();
            if (r[0] == 0x0B) {
                authReply = SPEC.parse("AUTH_REPLY", r, 1);
                final long next = (Long) authReply.get("nextSeq");
                if (!MessageDigest.isEqual(hmac("troupe-v2-server", hello, reply, proof, next), (byte[]) authReply.get("proof"))) {
                    throw new IOException("the node's AUTH_REPLY proof does not verify by the document's formula");
                }
            }
        } catch (EOFException | SocketException refused) {
            // the node refused AUTH and closed the connection
        }
        return this;
    }

    static byte[] nonce() {
        final byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        return n;
    }

    // ---------------------------------------------------------------- frames, by the document

    static byte[] advertise(int id, int kind, String text) {
        return SPEC.encode("ADVERTISE", "id", id, "kind", kind, "text", text);
    }

    static byte[] user(int recipient, int serializer, byte[] payload) {
        return SPEC.encode("USER", "recipient", recipient, "serializer", serializer, "manifest", 0, "flags", 0, "payload", payload);
    }

    static byte[] system(long seq, int kind, String watchee, String watcher) {
        return SPEC.encode("SYSTEM", "seq", seq, "kind", kind, "watchee", watchee, "watcher", watcher, "failed", 0);
    }

    static byte[] heartbeat(long nanos) {
        return SPEC.encode("HEARTBEAT", "nanos", nanos);
    }

    /** @return a frame of {@code type} with exactly {@code body} (for bodies the document forbids) */
    static byte[] raw(int type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).putInt(1 + body.length).put((byte) type).put(body).array();
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    byte[] readFrame() throws IOException {
        final int length = in.readInt();
        final byte[] f = new byte[length];
        in.readFully(f);
        return f;
    }

    /** @return whether the node closed the connection within the socket timeout */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (EOFException | SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    /** @return true if nothing arrived and the connection is still open after {@code millis} */
    boolean stillOpenAfter(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            return in.read() >= 0;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (SocketException e) {
            return false;
        } finally {
            socket.setSoTimeout(timeoutMillis);
        }
    }

    // ---------------------------------------------------------------- the accepting side (dial-backs)

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                final Socket s = listener.accept();
                synchronized (accepted) {
                    accepted.add(s);
                }
                final Thread t = new Thread(() -> serve(s), "spec-peer-conn-" + port);
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            s.setSoTimeout(0);
            final DataInputStream din = new DataInputStream(s.getInputStream());
            final OutputStream dout = s.getOutputStream();
            if (din.readInt() != 0x54525045) {
                return;
            }
            final byte[] hello = new byte[din.readInt()];
            din.readFully(hello);
            final Map<String, Object> h = SPEC.parse("HELLO", hello, 1);
            final byte[] unsigned = SPEC.encode("HELLO_REPLY", "version", 4, "auth", 1, "uid", uid, "nonce", nonce(),
                "system", system, "host", host, "port", port, "key", publicKey);
            final byte[] unsignedBody = Arrays.copyOfRange(unsigned, 4, unsigned.length);
            final byte[] signature = sign("troupe-v4-server-key", hello, unsignedBody);
            final byte[] reply = ByteBuffer.allocate(unsigned.length + 64).putInt(unsigned.length - 4 + 64)
                .put(unsigned, 4, unsigned.length - 4).put(signature).array();
            dout.write(reply);
            dout.flush();
            final byte[] auth = new byte[din.readInt()]; // a probe closes here instead
            din.readFully(auth);
            final Map<String, Object> a = SPEC.parse("AUTH", auth, 1);
            final byte[] replyBytes = Arrays.copyOfRange(reply, 4, reply.length);
            final byte[] proof = hmac("troupe-v2-client", hello, replyBytes, null, 0);
            if (!MessageDigest.isEqual(proof, (byte[]) a.get("proof"))
                || !verify((byte[]) h.get("key"), (byte[]) a.get("signature"), "troupe-v4-client-key", hello, replyBytes)) {
                return;
            }
            dout.write(SPEC.encode("AUTH_REPLY", "nextSeq", 1, "proof", hmac("troupe-v2-server", hello, replyBytes, proof, 1)));
            dout.flush();
            while (true) {
                final byte[] f = new byte[din.readInt()];
                din.readFully(f);
                if (f[0] == 0x08) {
                    final Map<String, Object> hb = SPEC.parse("HEARTBEAT", f, 1);
                    dout.write(SPEC.encode("HEARTBEAT_REPLY", "nanos", hb.get("nanos")));
                    dout.flush();
                }
                // everything else is read and dropped: system messages are never acknowledged
            }
        } catch (IOException closed) {
            // the node closed the connection, or this peer was closed
        }
    }

    // ---------------------------------------------------------------- the document's formulas

    /** {@code HMAC-SHA256(secret, label | len(HELLO) | HELLO | len(HELLO_REPLY) | HELLO_REPLY [| client proof | nextSeq])} */
    private byte[] hmac(String label, byte[] hello, byte[] reply, byte[] clientProof, long nextSeq) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            mac.update(ByteBuffer.allocate(4).putInt(hello.length).array());
            mac.update(hello);
            mac.update(ByteBuffer.allocate(4).putInt(reply.length).array());
            mac.update(reply);
            if (clientProof != null) {
                mac.update(clientProof);
                mac.update(ByteBuffer.allocate(8).putLong(nextSeq).array());
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code Ed25519(key, label | len(first) | first | len(second) | second)} */
    byte[] sign(String label, byte[] first, byte[] second) {
        try {
            final Signature s = Signature.getInstance("Ed25519");
            s.initSign(keys.getPrivate());
            s.update(signed(label, first, second));
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean verify(byte[] rawKey, byte[] signature, String label, byte[] first, byte[] second) {
        try {
            final byte[] der = concat(new byte[] {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}, rawKey);
            final Signature s = Signature.getInstance("Ed25519");
            s.initVerify(KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der)));
            s.update(signed(label, first, second));
            return s.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static byte[] signed(String label, byte[] first, byte[] second) {
        final byte[] l = label.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(l.length + 8 + first.length + second.length).put(l).putInt(first.length).put(first)
            .putInt(second.length).put(second).array();
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        final ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.array();
    }

    /** Closes the connection to the node and stops answering at its address (its dial-backs fail from now on). */
    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
        if (listener != null) {
            listener.close();
        }
        synchronized (accepted) {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
