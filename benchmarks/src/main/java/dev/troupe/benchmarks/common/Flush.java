package dev.troupe.benchmarks.common;

/**
 * The last message of a sender's fan-in batch. Messages from one sender arrive in order, so
 * when the target sees it, the sender's whole batch has been processed. One instance per
 * sender thread, reused for every batch.
 */
public final class Flush implements FanInMessage {

    /** Counted down by the target when it processes this message. */
    public final Completion completion;

    /** @param completion the sender's completion */
    public Flush(Completion completion) {
        this.completion = completion;
    }
}
