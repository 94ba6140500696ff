package dev.troupe.actor.routing;

import dev.troupe.actor.Behavior;

/**
 * Routers, as in Pekko typed: a pool spawns its routees as children; a group routes to the actors
 * a receptionist lists under a service key (see the cluster module's {@code Routers.group}).
 *
 * <pre>{@code
 * ActorRef<Work> workers = ctx.spawn(Routers.pool(4, Worker.create()).withRoundRobinRouting(), "workers");
 * workers.tell(new Work(...));   // to one of four workers
 * }</pre>
 */
public final class Routers {

    private Routers() {
    }

    /**
     * A pool of {@code size} routees spawned as children of the router, round robin by default.
     * A routee that fails is restarted; one that stops is replaced.
     *
     * @param size how many routees, at least 1
     * @param behavior each routee's behavior
     * @param <T> the message type
     * @return the router's behavior, to spawn
     */
    public static <T> PoolRouter<T> pool(int size, Behavior<T> behavior) {
        return PoolRouter.create(size, behavior);
    }
}
