/**
 * What every router is built on, for the routers of the runtime's sibling modules (the cluster's
 * group routers over the receptionist) and the runtime's own pool routers:
 * {@link dev.troupe.actor.spi.routing.RouterCore} (the current routees, the broadcast predicate,
 * dead letters {@code no-routees}) and the {@link dev.troupe.actor.spi.routing.RoutingLogic}s
 * (round robin, random, consistent hashing over stable routee identities). Application code
 * chooses a logic with a router's {@code with...Routing()} methods and needs nothing here.
 *
 * <p>Everything here runs on its router actor's thread only; {@code RouterCore.route} and
 * {@code RoutingLogic.select} allocate nothing. Uses the runtime's API only.
 */
package dev.troupe.actor.spi.routing;
