package dev.troupe.cluster;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.routing.PoolRouter;

/**
 * Routers, as in Pekko typed: {@link #group} routes to the actors the {@link Receptionist} lists
 * under a key, across the cluster once one runs; {@link #pool} is the runtime's pool router
 * ({@link dev.troupe.actor.routing.Routers#pool}), here too so one import serves both.
 *
 * <pre>{@code
 * ActorRef<Reserve> inventory = ctx.spawn(Routers.group(INVENTORY).withConsistentHashingRouting(10, Reserve::sku), "inventory");
 * }</pre>
 */
public final class Routers {

    private Routers() {
    }

    /**
     * A router over the receptionist's listing of a key: the actors registered under it on this
     * node and on members that are up and reachable ({@link Receptionist.Listing#serviceInstances}).
     * Round robin by default.
     *
     * @param key the service key
     * @param <T> the message type
     * @return the router's behavior, to spawn
     */
    public static <T> GroupRouter<T> group(ServiceKey<T> key) {
        return GroupRouter.create(key);
    }

    /**
     * @param size how many routees
     * @param behavior each routee's behavior
     * @param <T> the message type
     * @return a pool router's behavior
     * @see dev.troupe.actor.routing.Routers#pool
     */
    public static <T> PoolRouter<T> pool(int size, Behavior<T> behavior) {
        return dev.troupe.actor.routing.Routers.pool(size, behavior);
    }
}
