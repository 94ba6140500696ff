package dev.troupe.actor.spi.routing;

/**
 * Each routee in turn.
 *
 * @param <T> the message type
 */
public final class RoundRobinRoutingLogic<T> extends RoutingLogic<T> {

    private int next;

    @Override
    public void routeesChanged(String[] identities) {
        if (next >= identities.length) {
            next = 0;
        }
    }

    @Override
    public int select(T message, int routees) {
        int i = next;
        if (i >= routees) {
            i = 0;
        }
        next = i + 1 == routees ? 0 : i + 1;
        return i;
    }
}
