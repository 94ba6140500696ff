/**
 * Troupe cluster: membership from discovery, the receptionist, group routers, sharding. Exported:
 * {@code dev.troupe.cluster}, its discovery providers ({@code .discovery}) and sharding
 * ({@code .sharding}); the membership runtime ({@code dev.troupe.cluster.internal}) is not.
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
}
