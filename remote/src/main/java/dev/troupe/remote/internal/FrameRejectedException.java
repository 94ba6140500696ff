package dev.troupe.remote.internal;

import dev.troupe.remote.FrameRejection;

/**
 * Thrown by the codec and handshake when a peer's bytes break the protocol. Carries the
 * reason so the handler can count it; no stack trace, since it is an expected outcome of
 * bad input, not a bug.
 */
public final class FrameRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient FrameRejection reason;

    public FrameRejectedException(FrameRejection reason, String detail) {
        super(reason.tag() + ": " + detail, null, false, false);
        this.reason = reason;
    }

    public FrameRejection reason() {
        return reason;
    }
}
