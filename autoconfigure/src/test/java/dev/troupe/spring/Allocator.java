package dev.troupe.spring;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

import java.util.concurrent.atomic.AtomicInteger;

/** A test actor that allocates a known amount per message: 1 KiB per {@link Chunk}, nothing per {@link Nothing}. */
public final class Allocator {

    /** Keeps the allocation reachable so the JIT cannot drop it. */
    public static volatile Object sink;

    private Allocator() {
    }

    /** A message for which the actor allocates a 1 KiB byte[]. */
    public record Chunk(int i) {
    }

    /** A message for which it allocates nothing. */
    public enum Nothing { NOTHING }

    /**
     * @param processed counts the messages processed
     * @return the behavior
     */
    public static Behavior<Object> create(AtomicInteger processed) {
        return Behaviors.receiveMessage(m -> {
            if (m instanceof Chunk) {
                sink = new byte[1024];
            }
            processed.incrementAndGet();
            return Behaviors.same();
        });
    }
}
