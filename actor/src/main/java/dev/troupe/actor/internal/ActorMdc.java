package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;

/**
 * The MDC entries of an actor's turn: {@value #PATH} (the actor's path) and {@value #SYSTEM} (its
 * system's name).
 *
 * <h2>When they are set: on the actor's first log call of a turn (the default)</h2>
 * An actor that does not log pays nothing for them: not a thread-local lookup, not a map write.
 * The actor's own logger ({@link ActorLogger}, what {@code ctx.log()} returns) puts them before
 * its first enabled log call of a turn, so that call and every logger after it in the same turn
 * (a service the actor calls, say) see them; a call whose level is off puts nothing. The thread
 * keeps the cell they were put for ({@link DispatcherThread#mdcCell}); the turn loop tests that
 * one field when the turn ends and removes the entries if they are there. Pekko does the same:
 * its MDC is set when the actor's log is used and cleared after the message.
 *
 * <p>Removing them after a turn that logged allocates map entries for the next put in the usual
 * adapters (Logback keeps a {@code HashMap} per thread: 64 bytes for the two keys); a turn that
 * logs allocates its logging event anyway, so that is the turn's own cost.
 *
 * <p>Turns off the dispatcher threads (virtual turns, late messages after shutdown, which may run
 * inline inside another actor's turn) always get the entries for the whole turn and put back what
 * they found when they end: they are rare, and a virtual turn's thread is its own. A log call from
 * any other thread (a logger handed to a future's callback) gets them around the call.
 *
 * <h2>Every turn (opt-in)</h2>
 * With {@code ActorSystemSettings.Builder.mdcEveryTurn(true)} the turn loop puts them at the start
 * of every turn, so that loggers the actor reaches without logging itself see them too. That costs
 * two MDC writes per turn (two thread-local lookups and map writes in Logback: a third of a
 * one-message turn's time in a ping-pong). On a dispatcher thread the next turn overwrites them
 * and they are removed once the thread is still idle after a whole park (see
 * {@link DispatcherThread}): removing and putting them back every turn would allocate.
 *
 * <p>With SLF4J's no-op adapter (no provider on the class path) the runtime holds no
 * {@code ActorMdc} at all. The values are strings the runtime keeps anyway (the system's name,
 * the path's text, rendered once per path).
 */
final class ActorMdc {

    /** The MDC key of the actor's path. */
    static final String PATH = "troupePath";
    /** The MDC key of the actor's system's name. */
    static final String SYSTEM = "troupeSystem";

    private final String systemName;
    /** Whether the turn loop puts the entries at the start of every turn. */
    final boolean everyTurn;

    private ActorMdc(String systemName, boolean everyTurn) {
        this.systemName = systemName;
        this.everyTurn = everyTurn;
    }

    /**
     * @param systemName the system's name
     * @param everyTurn whether every turn puts the entries, rather than the actor's first log call
     * @return the MDC of a system's turns, or null when the bound MDC adapter keeps nothing
     */
    static ActorMdc create(String systemName, boolean everyTurn) {
        return keepsValues(MDC.getMDCAdapter()) ? new ActorMdc(systemName, everyTurn) : null;
    }

    /**
     * @param adapter the bound MDC adapter
     * @return whether it keeps values: not absent and not SLF4J's no-op adapter
     */
    static boolean keepsValues(MDCAdapter adapter) {
        return adapter != null && !(adapter instanceof NOPMDCAdapter);
    }

    /**
     * Puts the actor's entries at the start of its turn on a dispatcher thread ({@link #everyTurn}).
     *
     * @param thread the dispatcher thread running the turn
     * @param path the actor's path (its text is rendered once and kept)
     */
    void enter(DispatcherThread thread, ActorPath path) {
        put(path);
        thread.mdcSet = true;
    }

    /**
     * Before an enabled call of an actor's own logger: puts the actor's entries unless this turn
     * already did.
     *
     * @param cell the actor whose logger logs
     * @return what to put back after the call when the caller is not a dispatcher thread, else null
     */
    Previous beforeLog(ActorCell<?> cell) {
        final Thread current = Thread.currentThread();
        if (current instanceof DispatcherThread) {
            if (!everyTurn) {
                final DispatcherThread thread = (DispatcherThread) current;
                if (thread.mdcCell != cell) {
                    put(cell.path());
                    thread.mdcCell = cell;
                }
            }
            return null;
        }
        final ActorPath path = cell.path();
        final String text = path.toString();
        final String there = MDC.get(PATH);
        if (there == text || text.equals(there)) {
            return null; // a turn of this actor off the dispatcher threads, which put them around itself
        }
        return enterElsewhere(path);
    }

    /**
     * Removes the entries a log call put during the turn that just ended on this thread.
     *
     * @param thread the dispatcher thread whose turn ended with {@link DispatcherThread#mdcCell} set
     */
    static void afterTurn(DispatcherThread thread) {
        thread.mdcCell = null;
        clear();
    }

    private void put(ActorPath path) {
        MDC.put(SYSTEM, systemName);
        MDC.put(PATH, path.toString());
    }

    /**
     * Puts the actor's entries on a thread that is not a dispatcher thread (rare: allocates).
     *
     * @param path the actor's path
     * @return what to put back when the turn or the call ends
     */
    Previous enterElsewhere(ActorPath path) {
        final Previous previous = new Previous(MDC.get(SYSTEM), MDC.get(PATH));
        put(path);
        return previous;
    }

    /** The entries a turn or log call off the dispatcher threads found, put back when it ends. */
    static final class Previous {
        private final String system;
        private final String path;

        Previous(String system, String path) {
            this.system = system;
            this.path = path;
        }

        void restore() {
            restore(SYSTEM, system);
            restore(PATH, path);
        }

        private static void restore(String key, String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }

    /** Removes the entries: after a turn that logged, a dispatcher thread about to park, or a turn off the dispatcher threads. */
    static void clear() {
        MDC.remove(PATH);
        MDC.remove(SYSTEM);
    }
}
