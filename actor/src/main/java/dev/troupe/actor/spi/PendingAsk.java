package dev.troupe.actor.spi;

/**
 * The reply-to ref of an ask in progress, as a transport sees it when the request crosses to
 * another node: it says when the ask gives up, so a request still queued then is not sent, and
 * it can be failed at once when the node that would answer is known to be gone.
 */
public interface PendingAsk {

    /** @return {@code System.nanoTime()} at which the ask times out ({@code Long.MAX_VALUE} before its timer is armed) */
    long deadlineNanos();

    /** @return whether neither a reply, the timeout nor {@link #fail} has completed the ask yet */
    boolean isPending();

    /**
     * Fails the ask now, if it is still pending; a reply arriving later is a dead letter as
     * {@code ask-expired}, as after a timeout.
     *
     * @param cause what the asker's future fails with
     * @return whether the ask was still pending
     */
    boolean fail(Throwable cause);
}
