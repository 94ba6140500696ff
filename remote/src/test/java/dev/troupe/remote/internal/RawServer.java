package dev.troupe.remote.internal;

import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A hand-driven accepting peer on a plain server socket: it answers a node's outbound
 * handshake correctly (it knows the secret) and then does only what a test tells it to, such
 * as never acknowledging system messages or acknowledging seqs that were never sent. One
 * connection at a time; each accepted connection is handed to the test as a {@link Conn}.
 */
final class RawServer implements AutoCloseable {

    final ServerSocket server;
    final String system;
    final long uid;
    /** This peer's incarnation key: it signs its HELLO_REPLY with it. */
    final IncarnationKey key;
    private final Hmac hmac;
    private final BlockingQueue<Conn> accepted = new LinkedBlockingQueue<>();
    private final Thread acceptor;
    /** Whether accepted connections are read and answered here (heartbeats) instead of handed to the test. */
    private volatile boolean drain;

    RawServer(String system, long uid, byte[] secret) throws IOException {
        this(system, uid, secret, IncarnationKey.generate());
    }

    /** @param key the incarnation key to answer with (a {@link RawPeer}'s own, when it answers dial-backs) */
    RawServer(String system, long uid, byte[] secret, IncarnationKey key) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        this.system = system;
        this.uid = uid;
        this.key = key;
        this.hmac = new Hmac(secret);
        this.acceptor = new Thread(this::acceptLoop, "raw-server-" + system);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    String address() {
        return "troupe://" + system + "@127.0.0.1:" + port() + "/";
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                final Socket s = server.accept();
                s.setSoTimeout(5000);
                final Conn c = new Conn(s);
                try {
                    c.handshake();
                    if (drain) {
                        c.drainInBackground();
                    } else {
                        accepted.add(c);
                    }
                } catch (IOException | RuntimeException e) {
                    s.close();
                }
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** From now on connections are read here, heartbeats answered, everything else dropped: a peer that answers dial-backs. */
    RawServer draining() {
        drain = true;
        return this;
    }

    /** @return the next connection whose handshake completed */
    Conn next(long timeoutMs) throws InterruptedException {
        final Conn c = accepted.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (c == null) {
            throw new AssertionError("no connection from the node within " + timeoutMs + " ms");
        }
        return c;
    }

    private final java.util.Queue<Conn> drained = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Override
    public void close() throws IOException {
        server.close();
        Conn c;
        while ((c = accepted.poll()) != null) {
            c.close();
        }
        while ((c = drained.poll()) != null) {
            c.close();
        }
    }

    final class Conn implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final OutputStream out;
        Frames.Hello hello;

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        private void handshake() throws IOException {
            if (in.readInt() != Protocol.MAGIC) {
                throw new IOException("no magic");
            }
            final byte[] helloFrame = readFrame();
            hello = Frames.parseHello(Unpooled.wrappedBuffer(helloFrame, 1, helloFrame.length - 1));
            final byte[] reply = RawPeer.frame(b -> Frames.writeHelloReply(b, Protocol.VERSION, Protocol.AUTH_HMAC, uid, Hmac.nonce(),
                system, "127.0.0.1", port(), key.publicKey(), unsigned -> key.sign(Protocol.SERVER_KEY_LABEL, helloFrame, unsigned)));
            send(reply);
            final byte[] authFrame = readFrame(); // a probe closes here instead
            final Frames.Auth auth = Frames.parseAuth(Unpooled.wrappedBuffer(authFrame, 1, authFrame.length - 1));
            final byte[] clientProof = auth.proof();
            final byte[] replyTranscript = Arrays.copyOfRange(reply, Protocol.LENGTH_FIELD, reply.length);
            if (!Hmac.matches(hmac.clientProof(helloFrame, replyTranscript), clientProof)) {
                throw new IOException("wrong client proof");
            }
            if (!IncarnationKey.verify(hello.key(), auth.signature(), Protocol.CLIENT_KEY_LABEL, helloFrame, replyTranscript)) {
                throw new IOException("wrong client signature");
            }
            final byte[] serverProof = hmac.serverProof(helloFrame, replyTranscript, clientProof, 1);
            send(RawPeer.frame(b -> Frames.writeAuthReply(b, 1, serverProof)));
        }

        byte[] readFrame() throws IOException {
            final int length = in.readInt();
            final byte[] f = new byte[length];
            in.readFully(f);
            return f;
        }

        /** @return the next frame of the given type (type byte first), skipping others */
        byte[] readFrame(byte type) throws IOException {
            while (true) {
                final byte[] f = readFrame();
                if (f[0] == type) {
                    return f;
                }
            }
        }

        void send(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        /** Reads every frame until the connection closes, answering heartbeats (a daemon thread). */
        void drainInBackground() {
            final Thread t = new Thread(() -> {
                try {
                    socket.setSoTimeout(0);
                    while (true) {
                        final byte[] f = readFrame();
                        if (f[0] == Protocol.HEARTBEAT) {
                            final long nanos = Unpooled.wrappedBuffer(f, 1, 8).readLong();
                            send(RawPeer.frame(b -> Frames.writeHeartbeatReply(b, nanos)));
                        }
                    }
                } catch (IOException closed) {
                    // the node closed it, or the test closed the server
                } finally {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            }, "raw-server-drain-" + system);
            t.setDaemon(true);
            t.start();
            drained.add(this);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
