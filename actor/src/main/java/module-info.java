/**
 * The Troupe actor runtime. Exported: the API ({@code dev.troupe.actor}, its metric views and the
 * pool routers) and the SPI the sibling modules build on ({@code dev.troupe.actor.spi} and its
 * routing and instrumentation packages). The runtime itself ({@code dev.troupe.actor.internal}) is
 * not exported: a module that imports it does not compile.
 */
module dev.troupe.actor {
    // ActorContext.log() is an SLF4J Logger; ThreadAllocation hands out com.sun.management.ThreadMXBean
    requires transitive org.slf4j;
    requires transitive jdk.management;
    requires org.agrona;
    requires org.jctools.core;
    // JCTools' queues use sun.misc.Unsafe, but its descriptor requires jdk.unsupported only statically:
    // without this, an application on the module path would fail at its first dispatcher
    requires jdk.unsupported;

    exports dev.troupe.actor;
    exports dev.troupe.actor.metrics;
    exports dev.troupe.actor.routing;
    exports dev.troupe.actor.spi;
    exports dev.troupe.actor.spi.instrumentation;
    exports dev.troupe.actor.spi.routing;
}
