package dev.troupe.actor.spi.routing;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A routee chosen uniformly at random.
 *
 * @param <T> the message type
 */
public final class RandomRoutingLogic<T> extends RoutingLogic<T> {

    @Override
    public void routeesChanged(String[] identities) {
    }

    @Override
    public int select(T message, int routees) {
        return ThreadLocalRandom.current().nextInt(routees);
    }
}
