package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * A hand-driven protocol peer on a plain socket, for bad-input tests. Each one claims its own
 * address ({@code raw@127.0.0.1:<n>}), a random UID and its own incarnation key, so peers in one
 * test are distinct nodes. By default it also listens at the address it claims and answers the
 * node's dial-back there (a signed HELLO_REPLY with its key), as a real node would: the node reads
 * nothing from a connection whose claim it has not confirmed by dialling. Peers that claim an
 * address they do not own (impostors) do not listen.
 */
final class RawPeer implements AutoCloseable {

    final Socket socket;
    final DataInputStream in;
    final OutputStream out;
    final byte[] nonce = Hmac.nonce();
    final long uid = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    final String system;
    final String host;
    final int port;
    final int serverPort;
    final IncarnationKey key;
    /** Answers the node's dial-backs at {@link #port}, or null for a peer that claims someone else's address. */
    final RawServer listener;
    /** The AUTH_REPLY of the last handshake, null if the server refused AUTH. */
    Frames.AuthReply authReply;

    /** A peer that listens at the address it claims ({@code raw@127.0.0.1:<its listener's port>}). */
    RawPeer(int serverPort) throws IOException {
        this(serverPort, null, IncarnationKey.generate(), true);
    }

    private RawPeer(int serverPort, InetAddress source, IncarnationKey key, boolean listen) throws IOException {
        this(serverPort, source, "raw", "127.0.0.1", 0, key, listen);
    }

    /** A peer that claims {@code system@host:port} and does not listen there (it may be someone else's). */
    RawPeer(int serverPort, InetAddress source, String system, String host, int port) throws IOException {
        this(serverPort, source, system, host, port, IncarnationKey.generate(), false);
    }

    private RawPeer(int serverPort, InetAddress source, String system, String host, int port, IncarnationKey key, boolean listen)
        throws IOException {
        this.key = key;
        this.listener = listen ? new RawServer(system, uid, dev.troupe.remote.RemoteTestKit.SECRET.getBytes(
            java.nio.charset.StandardCharsets.UTF_8), key).draining() : null;
        this.serverPort = serverPort;
        socket = source == null ? new Socket("127.0.0.1", serverPort) : new Socket(InetAddress.getByName("127.0.0.1"), serverPort, source, 0);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        this.system = system;
        this.host = host;
        this.port = listen ? listener.port() : port;
    }

    /** A listening peer connecting from {@code source} (127.0.0.x). */
    static RawPeer from(int serverPort, InetAddress source) throws IOException {
        return new RawPeer(serverPort, source, IncarnationKey.generate(), true);
    }

    static byte[] frame(Consumer<ByteBuf> writer) {
        final ByteBuf b = Unpooled.buffer();
        writer.accept(b);
        final byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        b.release();
        return bytes;
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void sendOneByteAtATime(byte[] bytes) throws IOException {
        for (byte b : bytes) {
            out.write(b);
            out.flush();
        }
    }

    /** @return the HELLO frame, length prefix included, without the magic */
    byte[] helloFrame(String toSystem, int version, long claimedUid) {
        return helloFrame(toSystem, version, claimedUid, key.publicKey());
    }

    /** @return a HELLO naming {@code claimedKey} as the incarnation's key (an impostor names a key it does not hold) */
    byte[] helloFrame(String toSystem, int version, long claimedUid, byte[] claimedKey) {
        return frame(b -> Frames.writeHello(b, version, Protocol.AUTH_HMAC, claimedUid, nonce, system, host, port, toSystem,
            "127.0.0.1", serverPort, claimedKey));
    }

    /** @return the magic and a HELLO */
    byte[] hello(String toSystem, int version) {
        final byte[] h = helloFrame(toSystem, version, uid);
        final byte[] all = new byte[4 + h.length];
        System.arraycopy(RawPeer.frame(Frames::writeMagic), 0, all, 0, 4);
        System.arraycopy(h, 0, all, 4, h.length);
        return all;
    }

    /** Reads one frame: returns type byte followed by the body. */
    byte[] readFrame() throws IOException {
        final int length = in.readInt();
        final byte[] f = new byte[length];
        in.readFully(f);
        return f;
    }

    /**
     * Runs the whole handshake with the given secret; afterwards {@link #authReply} is the
     * server's AUTH_REPLY, or null if it closed the connection instead.
     *
     * @param oneByteWrites whether to send every byte in its own write
     * @return the server's HELLO_REPLY
     */
    Frames.HelloReply handshake(String toSystem, byte[] secret, boolean oneByteWrites) throws IOException {
        return handshake(withMagic(helloFrame(toSystem, Protocol.VERSION, uid)), secret, oneByteWrites);
    }

    static byte[] withMagic(byte[] helloFrame) {
        final byte[] all = new byte[4 + helloFrame.length];
        System.arraycopy(RawPeer.frame(Frames::writeMagic), 0, all, 0, 4);
        System.arraycopy(helloFrame, 0, all, 4, helloFrame.length);
        return all;
    }

    /** Runs the handshake from the given magic and HELLO (a claim of the test's choosing), signing with this peer's key. */
    Frames.HelloReply handshake(byte[] hello, byte[] secret, boolean oneByteWrites) throws IOException {
        if (oneByteWrites) {
            sendOneByteAtATime(hello);
        } else {
            send(hello);
        }
        final byte[] f = readFrame();
        if (f[0] != Protocol.HELLO_REPLY) {
            throw new IOException("expected HELLO_REPLY, got type " + f[0]);
        }
        final ByteBuf body = Unpooled.wrappedBuffer(f, 1, f.length - 1);
        final Frames.HelloReply reply = Frames.parseHelloReply(body);
        final byte[] helloTranscript = Arrays.copyOfRange(hello, 8, hello.length); // no magic, no length
        final byte[] proof = new Hmac(secret).clientProof(helloTranscript, f);
        final byte[] auth = frame(b -> Frames.writeAuth(b, proof, key.sign(Protocol.CLIENT_KEY_LABEL, helloTranscript, f)));
        if (oneByteWrites) {
            sendOneByteAtATime(auth);
        } else {
            send(auth);
        }
        authReply = null;
        try {
            final byte[] r = readFrame();
            if (r[0] == Protocol.AUTH_REPLY) {
                authReply = Frames.parseAuthReply(Unpooled.wrappedBuffer(r, 1, r.length - 1));
            }
        } catch (EOFException | SocketException refused) {
            // the server refused AUTH and closed the connection
        }
        return reply;
    }

    /** @return whether the server closed the connection within the socket timeout */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (EOFException | SocketException e) {
            return true; // reset counts as closed
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    /** @return true if nothing arrived and the socket is still open after {@code millis} */
    boolean stillOpenAfter(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            return in.read() >= 0;
        } catch (SocketTimeoutException e) {
            return true;
        } finally {
            socket.setSoTimeout(5000);
        }
    }

    /** @return AUTH for the transcript of {@code hello} (magic included) and the server's {@code reply} (type and body) */
    byte[] auth(byte[] secret, byte[] hello, byte[] reply) {
        final byte[] helloTranscript = Arrays.copyOfRange(hello, 8, hello.length);
        final byte[] proof = new Hmac(secret).clientProof(helloTranscript, reply);
        return frame(b -> Frames.writeAuth(b, proof, key.sign(Protocol.CLIENT_KEY_LABEL, helloTranscript, reply)));
    }

    @Override
    public void close() throws IOException {
        socket.close();
        if (listener != null) {
            listener.close();
        }
    }
}
