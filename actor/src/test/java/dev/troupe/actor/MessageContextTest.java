package dev.troupe.actor;

import dev.troupe.actor.spi.instrumentation.MessageContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link MessageContext}: a bounded list of headers that replaces by key and drops what does not fit. */
class MessageContextTest {

    @Test
    void keepsHeadersInOrderReplacesByKeyAndDropsBeyondTheBound() {
        final MessageContext c = new MessageContext();
        for (int i = 0; i < MessageContext.MAX_ENTRIES + 3; i++) {
            c.put("k" + i, "v" + i);
        }
        c.put("k0", "again");
        assertThat(c.size()).isEqualTo(MessageContext.MAX_ENTRIES);
        assertThat(c.key(0)).isEqualTo("k0");
        assertThat(c.value(0)).isEqualTo("again");
        assertThat(c.get("k" + (MessageContext.MAX_ENTRIES - 1))).isEqualTo("v" + (MessageContext.MAX_ENTRIES - 1));
        assertThat(c.get("k" + MessageContext.MAX_ENTRIES)).isNull();
        assertThatThrownBy(() -> c.key(MessageContext.MAX_ENTRIES)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> c.put("", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThat(c.local()).isNull();
        c.local("kept");
        assertThat(c.local()).isEqualTo("kept");
    }
}
