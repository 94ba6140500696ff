package dev.troupe.remote.internal;

import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The USER frame's optional header block, which carries a message's propagation headers (a W3C
 * {@code traceparent}) from the sending node's {@link MessageInstrumentation} to the receiving
 * one. Only a node with an instrumentation installed writes or reads one; without it the send
 * path never calls here, and a received block is checked and skipped ({@link Frames#headerBlockEnd}).
 *
 * <pre>
 * BEFORE (flags 0):       | rid | sid | mid | 00 | payload |
 * AFTER  (FLAG_HEADERS):  | rid | sid | mid | 02 | n (uint16) | entries (n bytes) | payload |
 *   entry: uint8 key length (1..255), key (ASCII), uint16 value length, value
 * </pre>
 *
 * Bounded on both sides: at most {@link Protocol#MAX_HEADER_BLOCK} bytes and
 * {@link MessageContext#MAX_ENTRIES} entries. A sender whose headers would not fit sends the
 * message without them; a peer whose block breaks either bound, or does not parse, loses its
 * connection ({@code malformed-frame}, counted).
 */
final class RemoteHeaders {

    private RemoteHeaders() {
    }

    /**
     * Asks the instrumentation for the message's context and writes its headers at {@code at},
     * where the payload would start, setting {@link Protocol#FLAG_HEADERS} in the body at
     * {@code bodyAt}. The tracing path: called only with an instrumentation installed.
     *
     * @return where the payload starts now ({@code at} if no block was written)
     */
    static int write(MessageInstrumentation instrumentation, RemoteActorRef<?> recipient, Object message,
                     MutableDirectBuffer dst, int bodyAt, int at) {
        final MessageContext c = instrumentation.onSend(recipient, message);
        if (c == null || c.size() == 0) {
            return at;
        }
        final int n = encode(dst, at, c);
        if (n == 0) {
            return at;
        }
        final int flagsAt = bodyAt + Protocol.USER_FLAGS_OFFSET;
        dst.putByte(flagsAt, (byte) (dst.getByte(flagsAt) | Protocol.FLAG_HEADERS));
        return at + n;
    }

    /**
     * Encodes a header block: {@code uint16 n}, then the entries.
     *
     * @return bytes written, or 0 if the headers would not fit the block's bounds (nothing is then sent)
     */
    static int encode(MutableDirectBuffer dst, int offset, MessageContext c) {
        int n = 0;
        for (int i = 0; i < c.size(); i++) {
            final int k = c.key(i).length();
            if (k > 255 || !isAscii(c.key(i)) || !isAscii(c.value(i))) {
                return 0;
            }
            n += 3 + k + c.value(i).length();
        }
        if (n == 0 || n > Protocol.MAX_HEADER_BLOCK) {
            return 0;
        }
        dst.putShort(offset, (short) n, ByteOrder.BIG_ENDIAN);
        int at = offset + 2;
        for (int i = 0; i < c.size(); i++) {
            final String key = c.key(i);
            final String value = c.value(i);
            dst.putByte(at, (byte) key.length());
            at += 1 + dst.putStringWithoutLengthAscii(at + 1, key);
            dst.putShort(at, (short) value.length(), ByteOrder.BIG_ENDIAN);
            at += 2 + dst.putStringWithoutLengthAscii(at + 2, value);
        }
        return at - offset;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0x7E || s.charAt(i) < 0x20) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads a block that {@link Frames#headerBlockEnd} has checked into a new context (the
     * tracing path on the I/O thread; allocates the context and its strings).
     *
     * @throws FrameRejectedException {@code malformed-frame} for more than {@link MessageContext#MAX_ENTRIES} entries
     */
    static MessageContext read(ByteBuf frame, int at) {
        final MessageContext c = new MessageContext();
        final int end = at + 2 + frame.getUnsignedShort(at);
        int p = at + 2;
        while (p < end) {
            final int k = frame.getUnsignedByte(p);
            final String key = frame.toString(p + 1, k, StandardCharsets.US_ASCII);
            p += 1 + k;
            final int v = frame.getUnsignedShort(p);
            final String value = frame.toString(p + 2, v, StandardCharsets.US_ASCII);
            p += 2 + v;
            if (c.get(key) == null && c.size() == MessageContext.MAX_ENTRIES) {
                throw new FrameRejectedException(FrameRejection.MALFORMED_FRAME, "USER header block with more than "
                    + MessageContext.MAX_ENTRIES + " entries");
            }
            c.put(key, value);
        }
        return c;
    }
}
