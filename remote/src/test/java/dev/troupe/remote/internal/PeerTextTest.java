package dev.troupe.remote.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a peer may claim as a host, and how its text reaches a log line. */
class PeerTextTest {

    @Test
    void hostnamesAndIpLiteralsAreValid() {
        for (String host : new String[] {"127.0.0.1", "0.0.0.0", "node-1.example.com", "worker_1", "inventory", "::1", "::",
            "fe80::1", "2001:db8:0:0:0:0:2:1", "2001:db8::2:1", "::ffff:192.0.2.1", "a.b-c.d"}) {
            assertThat(HostNames.isValid(host)).as(host).isTrue();
        }
    }

    @Test
    void textThatCouldBreakALogLineALabelOrAnAddressIsNot() {
        for (String host : new String[] {"", "evil\r\nhost", "a/b", "a@b", "a b", "-leading", "trailing-", "a..b", "x.",
            "1:2:3:4:5:6:7:8:9", "1::2::3", "fe80::1%eth0", "[::1]", "12345::", "::1.2.3", "::256.1.1.1", "h\u0000st",
            "\u0661\u0662\u0663::1", "a".repeat(64), "b.".repeat(127) + "b"}) {
            assertThat(HostNames.isValid(host)).as(host).isFalse();
        }
        assertThat(HostNames.isIpLiteral("10.0.0.7")).isTrue();
        assertThat(HostNames.isIpLiteral("node-1")).isFalse();
    }

    @Test
    void controlCharactersAndBackslashesAreEscapedAndLongTextIsCut() {
        assertThat(LogText.escape("beta\r\nERROR fake")).isEqualTo("beta\\u000d\\u000aERROR fake");
        assertThat(LogText.escape("a\\u000ab")).isEqualTo("a\\u005cu000ab");
        assertThat(LogText.escape("\u001b[31mred\u202e")).isEqualTo("\\u001b[31mred\\u202e");
        assertThat(LogText.escape("plain text")).isEqualTo("plain text");
        final String cut = LogText.escape("x".repeat(10_000));
        assertThat(cut).startsWith("x".repeat(LogText.MAX)).endsWith("...(10000 chars)").hasSizeLessThan(LogText.MAX + 32);
        assertThat(LogText.escape(null)).isEqualTo("null");
    }
}
