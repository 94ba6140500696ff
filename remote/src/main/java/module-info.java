/**
 * The Troupe remote transport. Exported: the API ({@code dev.troupe.remote}) and the opt-in Jackson
 * serializer ({@code dev.troupe.remote.jackson}, whose Jackson dependency is optional). The transport
 * itself ({@code dev.troupe.remote.internal}) is not exported.
 */
// Agrona is an automatic module (with a declared name) and is part of the API: serializers read and write its buffers
@SuppressWarnings("requires-transitive-automatic")
module dev.troupe.remote {
    requires transitive dev.troupe.actor;
    // RemoteSettings takes a Netty SslContext for mutual TLS
    requires transitive io.netty.handler;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.common;
    requires io.netty.transport;
    // epoll where Netty's native library loads, NIO otherwise; on the module path the library's own
    // module (io.netty.transport.epoll.linux.x86_64) joins with --add-modules
    requires io.netty.transport.classes.epoll;
    // a telling thread writes to the epoll socket itself (OutboundDrain, "Direct writes")
    requires io.netty.transport.unix.common;
    requires transitive org.agrona;
    // optional, as the dependency is: an application that uses JacksonSerializer requires tools.jackson.databind itself
    requires static tools.jackson.databind;
    requires static tools.jackson.dataformat.cbor;

    exports dev.troupe.remote;
    exports dev.troupe.remote.jackson;
}
