package dev.troupe.remote.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.function.Consumer;

/** A hand-driven protocol peer on a plain socket, for bad-input tests. */
final class RawPeer implements AutoCloseable {

    final Socket socket;
    final DataInputStream in;
    final OutputStream out;
    final byte[] nonce = Hmac.nonce();
    final long uid = 0x5EED_0000_0000_0001L;

    RawPeer(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
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

    byte[] hello(String toSystem, int version) {
        return frame(b -> {
            Frames.writeMagic(b);
            Frames.writeHello(b, version, Protocol.AUTH_HMAC, uid, nonce, "raw", "127.0.0.1", 1, toSystem);
        });
    }

    /** Reads one frame: returns type byte followed by the body. */
    byte[] readFrame() throws IOException {
        final int length = in.readInt();
        final byte[] f = new byte[length];
        in.readFully(f);
        return f;
    }

    /**
     * Runs the whole handshake with the given secret.
     *
     * @param oneByteWrites whether to send every byte in its own write
     * @return the server's HELLO_REPLY
     */
    Frames.HelloReply handshake(String toSystem, byte[] secret, boolean oneByteWrites) throws IOException {
        final byte[] hello = hello(toSystem, 1);
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
        final byte[] proof = new Hmac(secret).clientProof(nonce, reply.nonce(), uid, reply.uid());
        final byte[] auth = frame(b -> Frames.writeAuth(b, proof));
        if (oneByteWrites) {
            sendOneByteAtATime(auth);
        } else {
            send(auth);
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
