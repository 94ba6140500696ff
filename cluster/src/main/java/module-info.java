/**
 * Troupe cluster: membership from discovery, the receptionist, group routers, sharding. Exported:
 * the API ({@code dev.troupe.cluster}, its discovery providers {@code .discovery}, sharding
 * {@code .sharding} and the one-call node {@code .node}) and the transport SPI ({@code .spi}); the runtimes
 * ({@code dev.troupe.cluster.internal}, {@code dev.troupe.cluster.sharding.internal}) are not.
 */
module dev.troupe.cluster {
    requires transitive dev.troupe.remote;
    requires io.netty.buffer;
    requires io.netty.codec.dns;
    requires io.netty.common;
    requires io.netty.resolver;
    requires io.netty.resolver.dns;
    requires io.netty.transport;
    requires org.agrona;
    // TroupeNode's registry has the Jackson marker serializers: their modules join the module graph with this one
    requires tools.jackson.databind;
    requires tools.jackson.dataformat.cbor;

    exports dev.troupe.cluster;
    exports dev.troupe.cluster.discovery;
    exports dev.troupe.cluster.node;
    exports dev.troupe.cluster.sharding;
    exports dev.troupe.cluster.spi;
}
