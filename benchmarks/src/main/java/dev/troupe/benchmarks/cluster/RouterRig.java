package dev.troupe.benchmarks.cluster;

/** Three cluster nodes in one JVM over loopback, a worker on each, a group router on the first. */
interface RouterRig extends AutoCloseable {

    /** @return a short name for the tables */
    String name();

    /**
     * Asks through the router from {@code askers} threads, each keeping {@code window} asks
     * outstanding, until each has {@code asksPerAsker} answers.
     *
     * @return elapsed nanoseconds
     */
    long run(int askers, int asksPerAsker, int window) throws Exception;

    /** @return what to print when a run fails: dead letters by reason on each node, or similar */
    default String diagnostics() {
        return "";
    }

    /** @return answers by node name since the rig started, to show the asks were spread */
    java.util.Map<String, Long> answersByNode();

    @Override
    void close();
}
