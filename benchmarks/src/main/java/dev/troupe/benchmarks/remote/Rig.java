package dev.troupe.benchmarks.remote;

import org.HdrHistogram.Histogram;

/** One system pair (or raw Netty pair) that RemotePingPong drives. */
interface Rig extends AutoCloseable {

    /** @return a short name for the tables */
    String name();

    /**
     * Runs {@code clients} client/echo pairs; each keeps {@code window} pings outstanding and
     * stops after {@code roundTripsPerClient} replies.
     *
     * @return elapsed nanoseconds
     */
    long run(int clients, int roundTripsPerClient, int window) throws Exception;

    /**
     * Sends pings at a fixed rate from one client and records each round trip from its
     * <em>intended</em> send time (so a stall is not hidden: no coordinated omission).
     *
     * @return the histogram of round-trip times in nanoseconds, or null if not supported
     */
    Histogram latency(int ratePerSecond, int seconds) throws Exception;

    @Override
    void close();
}
