package dev.troupe.remote;

/**
 * Marks a message type for the Jackson CBOR serializer: a class (a record, a POJO with a
 * creator Jackson can use) that implements it, or a type under a sealed or plain interface that
 * extends it, is sent as CBOR with no serializer written by hand, once the registry has the
 * marker serializers ({@link dev.troupe.remote.jackson.JacksonSerializer#registerMarkers}; the Spring
 * Boot starter registers them by default).
 *
 * <pre>{@code
 * public sealed interface CounterCommand extends CborSerializable {
 *     record Increment(int by) implements CounterCommand { }
 *     record Get(ActorRef<Integer> replyTo) implements CounterCommand { }
 * }
 * }</pre>
 *
 * <p>Refs inside the message are written as refs (an id on the association, never path text).
 * A field whose declared type is abstract and marked (such as {@code CounterCommand} above)
 * carries the class of its value; type ids of classes that are not marked are refused. Java
 * serialization is never used. CBOR is the smaller and faster of the two formats; prefer it to
 * {@link JsonSerializable} unless the bytes must be readable. For hot message types, write a
 * binary {@link Serializer} instead.
 */
public interface CborSerializable {
}
