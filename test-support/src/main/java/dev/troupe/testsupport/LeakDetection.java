package dev.troupe.testsupport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Fails a test class if Netty's leak detector (paranoid in the build) reports {@code LEAK:}
 * while it ran. After the class it collects garbage and allocates a few tracked buffers so that
 * leaks of collected buffers get reported before the check.
 */
public final class LeakDetection implements BeforeAllCallback, AfterAllCallback {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static final Handler HANDLER = new Handler() {
        @Override
        public void publish(LogRecord record) {
            final String m = record.getMessage();
            if (m != null && m.contains("LEAK:")) {
                LEAKS.add(m);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    static {
        Logger.getLogger("").addHandler(HANDLER);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        LEAKS.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(50);
            for (int i = 0; i < 200; i++) {
                final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
                b.release();
            }
        }
        if (!LEAKS.isEmpty()) {
            throw new AssertionError(LEAKS.size() + " buffer leak(s) reported: " + LEAKS.get(0));
        }
    }
}
