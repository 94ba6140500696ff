/**
 * The runtime's service-provider interface: what the modules built beside the actor runtime
 * (the remote transport, the cluster, the test kit, the Spring Boot starter) use from it, and
 * nothing more. Application code needs none of it.
 *
 * <ul>
 *   <li>{@link dev.troupe.actor.spi.InternalActorRef}: the runtime's view of a ref, which
 *       besides user messages takes {@link dev.troupe.actor.spi.SystemMessage}s. Every ref the
 *       runtime hands out implements it; so must a sibling's own refs (remote refs, probes).</li>
 *   <li>{@link dev.troupe.actor.spi.SystemMessage}: a sealed hierarchy. The death-watch messages
 *       {@link dev.troupe.actor.spi.Watch}, {@link dev.troupe.actor.spi.Unwatch} and
 *       {@link dev.troupe.actor.spi.DeathWatchNotification} may cross a node boundary;
 *       {@link dev.troupe.actor.spi.RuntimeSystemMessage}s are the local runtime's own lifecycle
 *       messages and never do. A message dispatches itself to a
 *       {@link dev.troupe.actor.spi.SystemMessageHandler}, so a receiver needs no
 *       {@code instanceof} chain.</li>
 *   <li>{@link dev.troupe.actor.spi.PendingAsk}: the reply-to ref of an ask in progress, so a
 *       transport does not send a request whose ask already timed out and can fail an ask at
 *       once when the node that would answer is lost.</li>
 *   <li>{@link dev.troupe.actor.spi.ActorSystemSpi#of}: the runtime hooks of one system
 *       (resolving local refs, temporary refs, one-shot timers, the actor-thread check,
 *       dead letters) and {@link dev.troupe.actor.spi.ActorSystemSpi#newBehaviorDriver}.</li>
 *   <li>{@link dev.troupe.actor.spi.BehaviorDriver} and {@link dev.troupe.actor.spi.BehaviorHost}: the
 *       runtime's behavior interpreter, driven synchronously for a host that is not one of its
 *       actors (the test kit's {@code BehaviorTestKit}), so a behavior under test is interpreted
 *       by the same code as in production.</li>
 *   <li>{@link dev.troupe.actor.spi.ThreadAllocation}: the JVM's per-thread allocation counter, looked
 *       up once for the dispatchers and a transport's I/O threads.</li>
 *   <li>{@code dev.troupe.actor.spi.routing}: what routers are built on (the runtime's pools, the
 *       cluster's groups).</li>
 *   <li>{@code dev.troupe.actor.spi.instrumentation}: the hooks of tracing and observation libraries.</li>
 * </ul>
 *
 * <p>Types here may change between minor versions together with the modules that use them;
 * the packages {@code dev.troupe.actor} and {@code dev.troupe.actor.metrics} are the stable
 * API. Nothing here exposes a type of {@code dev.troupe.actor.internal} (checked by the
 * architecture tests).
 */
package dev.troupe.actor.spi;
