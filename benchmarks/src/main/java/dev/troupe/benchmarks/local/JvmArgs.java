package dev.troupe.benchmarks.local;

/** The JVM options every benchmark fork gets, Troupe and Pekko alike. */
final class JvmArgs {

    /** Agrona 2.x reaches into jdk.internal.misc. */
    static final String ADD_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    /** A fixed heap, so both systems run with the same young generation. */
    static final String HEAP_MIN = "-Xms1g";
    static final String HEAP_MAX = "-Xmx1g";

    private JvmArgs() {
    }
}
