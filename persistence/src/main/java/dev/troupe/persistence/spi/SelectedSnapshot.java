package dev.troupe.persistence.spi;

/**
 * A snapshot read back: the state and the sequence number of the last event it covers.
 *
 * @param sequenceNr the last event covered
 * @param snapshot the state
 */
public record SelectedSnapshot(long sequenceNr, Object snapshot) {
}
