package dev.troupe.remote.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * {@code docs/protocol.md} is the specification: every golden frame is built from the document's
 * field tables alone ({@link ProtocolSpec}) and must equal, byte for byte, both the golden file and
 * what the transport's encoders produce ({@link GoldenFrames}, which {@link FrameCodecTest} holds to
 * the files); the frame-type table, the constants and the version must be the code's. So the
 * document, the files and the code cannot drift apart.
 */
class ProtocolDocumentTest {

    private static final ProtocolSpec SPEC = ProtocolSpec.load();

    @Test
    void everyGoldenFrameIsBuiltFromTheDocumentsTables() throws IOException {
        final Map<String, byte[]> encoders = GoldenFrames.all();
        assertThat(new TreeSet<>(SPEC.goldenFiles())).as("the document has an example column for every golden frame")
            .containsExactlyElementsOf(new TreeSet<>(encoders.keySet()));
        for (String file : SPEC.goldenFiles()) {
            final byte[] fromDocument = SPEC.golden(file);
            try (InputStream in = getClass().getResourceAsStream("/frames/v4/" + file)) {
                assertNotNull(in, "golden file frames/v4/" + file + " is missing");
                assertArrayEquals(in.readAllBytes(), fromDocument, "docs/protocol.md's table for " + file + " is not the golden file");
            }
            assertArrayEquals(encoders.get(file), fromDocument, "docs/protocol.md's table for " + file + " is not what the encoders write");
        }
    }

    @Test
    void theFrameTypeTableNamesEveryTypeTheCodeKnows() {
        for (int type = 1; type <= Protocol.MAX_TYPE; type++) {
            assertThat(SPEC.types.get(type)).as("type 0x%02x", type).isEqualTo(Protocol.typeName(type));
        }
        assertThat(SPEC.types).hasSize(Protocol.MAX_TYPE);
        for (ProtocolSpec.FrameSpec f : SPEC.frames.values()) {
            if (f.type() >= 0) {
                assertThat(Protocol.typeName(f.type())).as("the heading of " + f.name()).isEqualTo(f.name());
            }
        }
        assertThat(SPEC.frames.keySet()).as("a field table for every frame type")
            .containsAll(SPEC.types.values());
    }

    @Test
    void theConstantsAndTheVersionAreTheCodes() {
        assertThat(SPEC.title).isEqualTo("# Troupe remote wire protocol, version " + Protocol.VERSION);
        assertThat(SPEC.versions.get(Protocol.VERSION)).isEqualTo("speaks it");
        for (Map.Entry<Integer, String> v : SPEC.versions.entrySet()) {
            if (v.getKey() != Protocol.VERSION) {
                assertThat(v.getValue()).as("version " + v.getKey()).startsWith("refused: `protocol-version`");
            }
        }
        final Map<String, Long> code = Map.ofEntries(
            Map.entry("version", (long) Protocol.VERSION),
            Map.entry("magic", (long) Protocol.MAGIC),
            Map.entry("handshake frame limit", (long) Protocol.MAX_HANDSHAKE_FRAME),
            Map.entry("nonce bytes", (long) Protocol.NONCE_LENGTH),
            Map.entry("proof bytes", (long) Protocol.PROOF_LENGTH),
            Map.entry("key bytes", (long) IncarnationKey.PUBLIC_KEY_LENGTH),
            Map.entry("signature bytes", (long) IncarnationKey.SIGNATURE_LENGTH),
            Map.entry("ephemeral id bit", (long) Protocol.EPHEMERAL_ID),
            Map.entry("ephemeral slots", (long) Protocol.EPHEMERAL_SLOTS),
            Map.entry("header block bytes", (long) Protocol.MAX_HEADER_BLOCK),
            Map.entry("header entries", (long) Protocol.MAX_HEADER_ENTRIES),
            Map.entry("failure text bytes", (long) Protocol.MAX_FAILURE_TEXT),
            Map.entry("failure notices per second", (long) InboundConnection.FAILURE_NOTICES_PER_SECOND),
            Map.entry("windowed body bytes", (long) Protocol.WINDOWED_BODY),
            Map.entry("largest system seq", Protocol.MAX_SYSTEM_SEQ));
        assertThat(SPEC.constants.keySet()).containsExactlyInAnyOrderElementsOf(code.keySet());
        for (Map.Entry<String, String> c : SPEC.constants.entrySet()) {
            final String v = c.getValue();
            final long value = v.startsWith("0x") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
            assertThat(value).as(c.getKey()).isEqualTo(code.get(c.getKey()));
        }
    }

    @Test
    void theLabelsOfTheProofsAndSignaturesAreTheCodes() throws IOException {
        final String doc = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("../docs/protocol.md")),
            java.nio.charset.StandardCharsets.UTF_8);
        for (byte[] label : new byte[][] {Protocol.CLIENT_LABEL, Protocol.SERVER_LABEL, Protocol.CLIENT_KEY_LABEL, Protocol.SERVER_KEY_LABEL}) {
            assertThat(doc).contains("\"" + new String(label, java.nio.charset.StandardCharsets.US_ASCII) + "\"");
        }
    }
}
