package dev.troupe.spring;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.testkit.ActorTestKit;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** A test actor that processes one message per permit released, so a test controls its mailbox. */
public final class Gate {

    private final Semaphore permits = new Semaphore(0);
    private final AtomicInteger entered = new AtomicInteger();
    private final AtomicInteger processed = new AtomicInteger();

    /** @return a behavior that waits (at most 30 s) for a permit per message */
    public Behavior<String> behavior() {
        return Behaviors.receiveMessage(msg -> {
            entered.incrementAndGet();
            try {
                permits.tryAcquire(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            processed.incrementAndGet();
            return Behaviors.same();
        });
    }

    /** @return messages whose processing has begun (each then waits for its permit) */
    public int entered() {
        return entered.get();
    }

    /** @param n messages to let through */
    public void release(int n) {
        permits.release(n);
    }

    /** @return messages processed so far */
    public int processed() {
        return processed.get();
    }

    /**
     * @param n the count to wait for
     * @throws InterruptedException if interrupted
     */
    public void awaitProcessed(int n) throws InterruptedException {
        ActorTestKit.awaitAssert(Duration.ofSeconds(10), () -> assertThat(processed.get()).as("messages processed").isGreaterThanOrEqualTo(n));
    }
}
