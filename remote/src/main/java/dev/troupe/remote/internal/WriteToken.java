package dev.troupe.remote.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Who may read an association's lanes and write to its socket now: the event loop or one telling
 * thread ({@link OutboundDrain}, "Direct writes"). One int, moved by compare-and-set:
 * <pre>
 *   LOOP --giveUp (loop)--> IDLE --tryTake (producer)--> PRODUCER --giveBack--> IDLE
 *     ^                       |                             | loopOwns (loop): marked wanted
 *     |                       +--loopOwns (loop)--> LOOP     v
 *     +----------giveBack (producer): handed over------- WANTED
 * </pre>
 * Many producers, one loop. Progress: lock-free; no side ever waits for the other. A producer that
 * cannot take the token wakes the loop as before; the loop that finds a producer holding it marks
 * it wanted and the producer, giving it back, hands it over (the caller then schedules the loop's
 * resumption). Each transition is a volatile compare-and-set or store, so everything a holder did
 * happens-before whatever the next holder does.
 */
final class WriteToken {

    static final int IDLE = 0;
    static final int LOOP = 1;
    static final int PRODUCER = 2;
    static final int WANTED = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(WriteToken.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The loop holds it at first: it gives it up only once the connection is quiet. */
    @SuppressWarnings("unused")
    private volatile int state = LOOP;

    /** @return whether the calling producer took the free token (a full fence either way it succeeds) */
    boolean tryTake() {
        return (int) STATE.getVolatile(this) == IDLE && STATE.compareAndSet(this, IDLE, PRODUCER);
    }

    /**
     * The producer gives the token back.
     *
     * @param toLoop whether it must go to the loop whatever the loop asked (a partial write's remainder waits)
     * @return true if it went to the loop, which the caller must now resume
     */
    boolean giveBack(boolean toLoop) {
        if (!toLoop && STATE.compareAndSet(this, PRODUCER, IDLE)) {
            return false;
        }
        STATE.setVolatile(this, LOOP); // only the holder leaves PRODUCER or WANTED
        return true;
    }

    /**
     * The loop's claim (loop only).
     *
     * @return true if the loop holds the token now; false if a producer does (marked wanted: it hands it over)
     */
    boolean loopOwns() {
        while (true) {
            final int t = (int) STATE.getVolatile(this);
            if (t == LOOP) {
                return true;
            }
            if (t == WANTED) {
                return false;
            }
            // IDLE -> LOOP, or PRODUCER -> WANTED; a failed CAS means the other side moved: look again
            if (STATE.compareAndSet(this, t, t == IDLE ? LOOP : WANTED)) {
                return t == IDLE;
            }
        }
    }

    /** The loop, holding it, gives it up to the producers (loop only). */
    void giveUp() {
        STATE.setVolatile(this, IDLE);
    }

    /** @return whether the loop holds it (loop only: no one else moves it away from LOOP) */
    boolean isLoop() {
        return (int) STATE.getVolatile(this) == LOOP;
    }

    /** @return the state now (tests, diagnostics) */
    int state() {
        return (int) STATE.getVolatile(this);
    }
}
