package dev.troupe.benchmarks.remote;

/**
 * One system pair (or raw Netty pair) that {@link RemoteMaxThroughput} drives: senders on one
 * side push byte-array payloads at receivers on the other, in the shape of Akka's
 * MaxThroughputSpec (bursts, each followed by a flow-control message the receiver echoes; at most
 * three bursts unanswered per sender).
 */
interface OneWayRig extends AutoCloseable {

    /** Bursts a sender keeps unanswered, as in MaxThroughputSpec. */
    int BURSTS_IN_FLIGHT = 3;

    /** @return a short name for the tables */
    String name();

    /**
     * Runs {@code senders} sender/receiver pairs; each sender sends {@code messagesPerSender}
     * payloads of {@code payloadSize} bytes in bursts of {@code burst}.
     *
     * @return nanoseconds until every receiver counted every payload
     */
    long run(int senders, long messagesPerSender, int payloadSize, int burst) throws Exception;

    /** @return bytes a payload of this size takes on the wire, framing included (for the bytes/s column) */
    int wireBytes(int payloadSize);

    @Override
    void close();
}
