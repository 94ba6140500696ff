package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.remote.SerializerRegistry;
import org.agrona.ExpandableArrayBuffer;

import java.util.Arrays;

/**
 * A snapshot or state serialized on the caller's thread (it may change afterwards), ready for a
 * statement on a reader thread.
 *
 * @param serializerId the serializer's id
 * @param manifest the manifest, or empty
 * @param bytes the payload
 */
public record Serialized(int serializerId, String manifest, byte[] bytes) {

    /**
     * @param codec the serializers
     * @param maxBytes the bound ({@code maxEventBytes}); a larger value is refused before any statement
     * @param counters where a refusal is counted
     * @param what the value, for the error
     * @param value a snapshot or a state
     * @return its bytes
     * @throws PersistenceException (oversized, serialization) if it cannot be stored
     */
    public static Serialized of(Codec codec, int maxBytes, StoreCounters counters, String what, Object value) {
        final SerializerRegistry.Binding b = codec.binding(value);
        final ExpandableArrayBuffer buf = new ExpandableArrayBuffer(256);
        final int len = Codec.write(b, value, buf, 0);
        if (len > maxBytes) {
            counters.failure(PersistenceFailure.OVERSIZED);
            throw new PersistenceException(PersistenceFailure.OVERSIZED, what + " serialized to " + len + " bytes, over the bound of "
                + maxBytes + " (maxEventBytes); not stored", null);
        }
        return new Serialized(b.serializer().id(), Codec.manifest(b), Arrays.copyOf(buf.byteArray(), len));
    }
}
