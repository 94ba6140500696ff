package dev.troupe.actor.spi.routing;

/**
 * Chooses a routee for each message. One instance per router actor, used on that actor's thread
 * only, so implementations keep plain fields. {@link #select} is the hot path and must allocate
 * nothing; {@link #routeesChanged} runs when routees come and go and may.
 *
 * @param <T> the message type
 */
public abstract class RoutingLogic<T> {

    /**
     * The routees changed. Identities stay the same for a routee that was restarted or replaced
     * in its slot, so a logic keyed on them (consistent hashing) keeps its assignment.
     *
     * @param identities one stable identity per routee, in routee order
     */
    public abstract void routeesChanged(String[] identities);

    /**
     * @param message the message
     * @param routees how many routees there are, at least 1
     * @return the index of the routee, within {@code [0, routees)}
     */
    public abstract int select(T message, int routees);
}
