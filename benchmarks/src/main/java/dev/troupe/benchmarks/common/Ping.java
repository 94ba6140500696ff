package dev.troupe.benchmarks.common;

/**
 * The ping of a pair, carrying the ref to answer to. Each pinger allocates its ping once and
 * sends the same instance on every round trip (a pre-allocated 16-byte message), so the
 * bytes measured per message are the runtime's own.
 *
 * @param <R> the ref type of the actor system under test
 */
public final class Ping<R> implements PongerMessage {

    /** Where the ponger sends {@link Pong#INSTANCE}. */
    public final R replyTo;

    /** @param replyTo where the ponger answers */
    public Ping(R replyTo) {
        this.replyTo = replyTo;
    }
}
