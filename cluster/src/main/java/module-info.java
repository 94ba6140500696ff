/**
 * Troupe cluster: membership from discovery, the receptionist, group routers, sharding. Exported:
 * the API ({@code dev.troupe.cluster}, its discovery providers {@code .discovery} and sharding
 * {@code .sharding}) and the transport SPI ({@code .spi}); the runtimes
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

    exports dev.troupe.cluster;
    exports dev.troupe.cluster.discovery;
    exports dev.troupe.cluster.sharding;
    exports dev.troupe.cluster.spi;
}
