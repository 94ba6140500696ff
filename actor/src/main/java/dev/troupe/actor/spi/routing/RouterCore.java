package dev.troupe.actor.spi.routing;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.DeadLetters;

import java.util.List;
import java.util.function.Predicate;

/**
 * What pool and group routers share: the current routees, the routing logic, the broadcast
 * predicate, and dead letters {@code no-routees} when there is nobody to route to. Used on the
 * router actor's thread only.
 *
 * <p>{@link #route} is the hot path: it reads the routee array into a local, asks the logic for
 * an index, and tells one routee (or each of them for a broadcast message). No allocation.
 *
 * @param <T> the message type
 */
public final class RouterCore<T> {

    private static final ActorRef<?>[] NONE = new ActorRef<?>[0];

    private final RoutingLogic<T> logic;
    private final Predicate<T> broadcast;
    private final DeadLetters deadLetters;
    private final ActorPath self;
    @SuppressWarnings("unchecked")
    private ActorRef<T>[] routees = (ActorRef<T>[]) NONE;
    private long routed;
    private long noRoutees;

    /**
     * @param logic the routing logic, this router's own instance
     * @param broadcast messages it accepts go to every routee; null for none
     * @param deadLetters where messages with no routee go
     * @param self the router's path, the dead letters' recipient
     */
    public RouterCore(RoutingLogic<T> logic, Predicate<T> broadcast, DeadLetters deadLetters, ActorPath self) {
        this.logic = logic;
        this.broadcast = broadcast;
        this.deadLetters = deadLetters;
        this.self = self;
    }

    /**
     * Replaces the routees (a set-up path: allocates).
     *
     * @param refs the routees, in a stable order
     * @param identities one stable identity per routee (for consistent hashing)
     */
    @SuppressWarnings("unchecked")
    public void setRoutees(List<ActorRef<T>> refs, String[] identities) {
        if (refs.size() != identities.length) {
            throw new IllegalArgumentException("one identity per routee");
        }
        routees = refs.toArray((ActorRef<T>[]) new ActorRef<?>[0]);
        logic.routeesChanged(identities);
    }

    /**
     * Sends a message on: to every routee if it is a broadcast message, else to the one the logic picks.
     *
     * @param message the message
     */
    public void route(T message) {
        final ActorRef<T>[] r = routees;
        final int n = r.length;
        if (n == 0) {
            noRoutees++;
            deadLetters.publish(message, self, DeadLetterReason.NO_ROUTEES);
            return;
        }
        routed++;
        if (broadcast != null && broadcast.test(message)) {
            for (int i = 0; i < n; i++) {
                r[i].tell(message);
            }
            return;
        }
        r[logic.select(message, n)].tell(message);
    }

    /** @return the current routees' count */
    public int size() {
        return routees.length;
    }

    /**
     * @param i an index below {@link #size()}
     * @return the routee
     */
    public ActorRef<T> routee(int i) {
        return routees[i];
    }

    /** @return messages routed so far */
    public long routed() {
        return routed;
    }

    /** @return messages that found no routee so far */
    public long noRoutees() {
        return noRoutees;
    }
}
