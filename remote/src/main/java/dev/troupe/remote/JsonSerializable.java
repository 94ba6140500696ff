package dev.troupe.remote;

/**
 * Marks a message type for the Jackson JSON serializer: as {@link CborSerializable}, but the
 * bytes on the wire are JSON (readable in a capture, larger and slower to write and read than
 * CBOR). The registry needs the marker serializers
 * ({@link dev.troupe.remote.jackson.JacksonSerializer#registerMarkers}; the Spring Boot starter
 * registers them by default).
 */
public interface JsonSerializable {
}
