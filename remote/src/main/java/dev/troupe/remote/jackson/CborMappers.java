package dev.troupe.remote.jackson;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.databind.cfg.MapperBuilder;
import tools.jackson.dataformat.cbor.CBORFactory;
import tools.jackson.dataformat.cbor.CBORMapper;

/**
 * The CBOR mapper, in a class of its own so that the JSON serializer never links
 * {@code jackson-dataformat-cbor} (an optional dependency of its own): a missing jar fails only a CBOR
 * serializer's construction, with a message naming it.
 */
final class CborMappers {

    private CborMappers() {
    }

    static MapperBuilder<?, ?> builder(StreamReadConstraints read, StreamWriteConstraints write) {
        return CBORMapper.builder(CBORFactory.builder().streamReadConstraints(read).streamWriteConstraints(write).build());
    }
}
