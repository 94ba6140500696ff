package dev.troupe.remote.internal;

import dev.troupe.actor.spi.ThreadAllocation;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The transport's thread factory: Netty's, plus the list of the I/O threads it made, so the bytes
 * those threads allocate can be read at scrape time ({@link #allocatedBytes()}) and shown beside
 * the actors' allocation. The threads are made once, when the event loops start.
 */
final class IoThreads extends DefaultThreadFactory {

    private static final com.sun.management.ThreadMXBean THREADS = ThreadAllocation.threadBean();

    private final CopyOnWriteArrayList<Thread> threads = new CopyOnWriteArrayList<>();

    IoThreads(String poolName) {
        super(poolName, true);
    }

    @Override
    protected Thread newThread(Runnable r, String name) {
        final Thread t = super.newThread(r, name);
        threads.add(t);
        return t;
    }

    /** @return bytes allocated on the heap by the I/O threads alive now, or -1 where the JVM cannot tell */
    long allocatedBytes() {
        if (THREADS == null) {
            return -1;
        }
        long sum = 0;
        for (Thread t : threads) {
            final long b = THREADS.getThreadAllocatedBytes(t.getId());
            if (b > 0) {
                sum += b;
            }
        }
        return sum;
    }
}
