/**
 * Pool routers: {@link dev.troupe.actor.routing.Routers#pool} (routees spawned as children, routed
 * round robin, at random or by consistent hashing, with broadcast messages). What pools share with
 * the cluster's group routers (the routing logics and the core that sends each message to one
 * routee, or to all for broadcast messages) is the SPI package {@code dev.troupe.actor.spi.routing}.
 * A package of its own so that the runtime's API ({@code dev.troupe.actor}) does not depend on it.
 * Every class here runs on its router actor's thread only, and routing a message allocates nothing.
 */
package dev.troupe.actor.routing;
