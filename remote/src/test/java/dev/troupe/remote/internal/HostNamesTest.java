package dev.troupe.remote.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The one spelling addresses are compared by: computed from the characters alone, never looked up. */
class HostNamesTest {

    @Test
    void ipv4LiteralsLoseTheirLeadingZeros() {
        assertThat(HostNames.canonical("127.000.000.001")).isEqualTo("127.0.0.1");
        assertThat(HostNames.canonical("010.1.02.3")).isEqualTo("10.1.2.3");
        assertThat(HostNames.canonical("127.0.0.1")).isEqualTo("127.0.0.1");
    }

    @Test
    void ipv6LiteralsTakeRfc5952sFormAndMappedOnesBecomeIpv4() {
        assertThat(HostNames.canonical("::ffff:127.0.0.1")).isEqualTo("127.0.0.1");
        assertThat(HostNames.canonical("0:0:0:0:0:ffff:7f00:1")).isEqualTo("127.0.0.1");
        assertThat(HostNames.canonical("0:0:0:0:0:0:0:1")).isEqualTo("::1");
        assertThat(HostNames.canonical("2001:0DB8:0000:0000:0001:0000:0000:0001")).isEqualTo("2001:db8::1:0:0:1");
        assertThat(HostNames.canonical("2001:db8:0:1:1:1:1:1")).as("a single zero group stays").isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(HostNames.canonical("1::")).isEqualTo("1::");
        assertThat(HostNames.canonical("::")).isEqualTo("::");
    }

    @Test
    void hostNamesAreCaseInsensitiveAndAnythingElseStaysAsItIs() {
        assertThat(HostNames.canonical("Node-1.Example.COM")).isEqualTo("node-1.example.com");
        assertThat(HostNames.canonical("evil\r\nhost")).isEqualTo("evil\r\nhost");
        assertThat(HostNames.canonical("")).isEmpty();
        assertThat(HostNames.canonical(null)).isNull();
    }
}
