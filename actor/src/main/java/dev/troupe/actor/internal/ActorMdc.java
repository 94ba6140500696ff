package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;

/**
 * The MDC entries of an actor's turn: {@value #PATH} (the actor's path) and {@value #SYSTEM} (its
 * system's name), for the actor's logger and any other logger on its thread while it runs.
 *
 * <p><b>Cost.</b> Set once per turn, never per message, and only when an MDC adapter that keeps
 * values is bound: with SLF4J's no-op adapter (no provider on the class path) the runtime holds
 * no {@code ActorMdc} and the turn loop skips the MDC entirely. The values are strings the
 * runtime keeps anyway (the system's name, the path's text, rendered once per path).
 *
 * <p><b>When the entries go.</b> On a dispatcher thread, the next turn overwrites them and they
 * are removed when the thread runs out of actors and parks: removing them after every turn and
 * putting them back in the next would allocate map entries per turn in the usual adapters
 * (Logback's keeps a {@code HashMap} per thread: 64 bytes per turn for two keys), while
 * overwriting existing keys allocates nothing. Between two turns the thread runs only the
 * dispatcher's own code, which does not log. A turn that runs on a thread that is not a
 * dispatcher thread (a virtual-thread turn, a late system message after shutdown, which may run
 * inline inside another actor's turn) puts back what was there before when it ends.
 */
final class ActorMdc {

    /** The MDC key of the actor's path. */
    static final String PATH = "troupePath";
    /** The MDC key of the actor's system's name. */
    static final String SYSTEM = "troupeSystem";

    private final String systemName;

    private ActorMdc(String systemName) {
        this.systemName = systemName;
    }

    /**
     * @param systemName the system's name
     * @return the MDC of a system's turns, or null when the bound MDC adapter keeps nothing
     */
    static ActorMdc create(String systemName) {
        return keepsValues(MDC.getMDCAdapter()) ? new ActorMdc(systemName) : null;
    }

    /**
     * @param adapter the bound MDC adapter
     * @return whether it keeps values: not absent and not SLF4J's no-op adapter
     */
    static boolean keepsValues(MDCAdapter adapter) {
        return adapter != null && !(adapter instanceof NOPMDCAdapter);
    }

    /**
     * Puts the actor's entries at the start of its turn on a dispatcher thread.
     *
     * @param thread the dispatcher thread running the turn
     * @param path the actor's path (its text is rendered once and kept)
     */
    void enter(DispatcherThread thread, ActorPath path) {
        MDC.put(SYSTEM, systemName);
        MDC.put(PATH, path.toString());
        thread.mdcSet = true;
    }

    /**
     * Puts the actor's entries at the start of a turn on another thread (rare: allocates).
     *
     * @param path the actor's path
     * @return what to put back when the turn ends
     */
    Previous enterElsewhere(ActorPath path) {
        final Previous previous = new Previous(MDC.get(SYSTEM), MDC.get(PATH));
        MDC.put(SYSTEM, systemName);
        MDC.put(PATH, path.toString());
        return previous;
    }

    /** The entries a turn off the dispatcher threads found, put back when it ends. */
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

    /** Removes the entries: a dispatcher thread about to park, or a turn off the dispatcher threads. */
    static void clear() {
        MDC.remove(PATH);
        MDC.remove(SYSTEM);
    }
}
