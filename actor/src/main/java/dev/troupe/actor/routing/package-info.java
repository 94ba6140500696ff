/**
 * Routers: {@link dev.troupe.actor.routing.Routers#pool} (routees spawned as children) and what
 * group routers (in the cluster module, over the receptionist) share with pools: the routing
 * logics and the {@link dev.troupe.actor.routing.RouterCore} that sends each message to one
 * routee, or to all for broadcast messages. A package of its own so that the runtime's API
 * ({@code dev.troupe.actor}) does not depend on it. Every class here runs on its router actor's
 * thread only, and routing a message allocates nothing.
 */
package dev.troupe.actor.routing;
