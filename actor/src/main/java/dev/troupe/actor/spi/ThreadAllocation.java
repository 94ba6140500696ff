package dev.troupe.actor.spi;

import java.lang.management.ManagementFactory;

/**
 * The JVM's per-thread allocation counter ({@code com.sun.management.ThreadMXBean}), looked up
 * once for every reader of it: the dispatchers' {@code allocatedBytes()}, the allocation
 * attribution of sampled turns, and a transport's I/O threads. Reading it costs a JVM counter read
 * (tens of nanoseconds) and allocates nothing, so a dispatcher thread may read its own on a
 * sampled turn.
 */
public final class ThreadAllocation {

    private static final com.sun.management.ThreadMXBean BEAN = lookUp();

    private ThreadAllocation() {
    }

    /**
     * @return the JVM's thread bean with per-thread allocation counting turned on, or null where the
     *         JVM has none (not a HotSpot-style JVM): readers then report -1, or attribute nothing
     */
    public static com.sun.management.ThreadMXBean threadBean() {
        return BEAN;
    }

    private static com.sun.management.ThreadMXBean lookUp() {
        try {
            final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
            if (bean instanceof com.sun.management.ThreadMXBean) {
                final com.sun.management.ThreadMXBean sun = (com.sun.management.ThreadMXBean) bean;
                if (sun.isThreadAllocatedMemorySupported()) {
                    if (!sun.isThreadAllocatedMemoryEnabled()) {
                        sun.setThreadAllocatedMemoryEnabled(true);
                    }
                    return sun;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // not a HotSpot-style JVM (or no jdk.management module): no per-thread counts
        }
        return null;
    }
}
