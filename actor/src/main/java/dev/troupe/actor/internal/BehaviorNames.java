package dev.troupe.actor.internal;

import dev.troupe.actor.Behavior;

/**
 * The class that defined a behavior, for the actor's logger name, the actor tree of the
 * endpoint and {@code toString}: the user's class, never {@code FunctionalBehavior} or an
 * anonymous class of the builder.
 *
 * <ul>
 *   <li>A behavior class of the user's own ({@code AbstractBehavior} or
 *       {@code ExtensibleBehavior} subclass) defines itself.</li>
 *   <li>A behavior made by {@code Behaviors} from functions is defined by the class whose code
 *       wrote those functions. A lambda or method reference is a hidden class named after that
 *       class ({@code com.acme.Orders$$Lambda/0x...}): its name up to {@code $$Lambda} is the
 *       answer, read from the class name with no stack walk.</li>
 *   <li>Wrappers (setup, supervision, timers, stash, logMessages) are defined by what they wrap.</li>
 * </ul>
 *
 * <p>Computed when asked (the logger once per actor, the endpoint per scrape), never per message.
 */
public final class BehaviorNames {

    private static final String LAMBDA_MARKER = "$$Lambda";

    private BehaviorNames() {
    }

    /** A behavior of the runtime's that knows who defined it. */
    interface Defined {
        /** @return the name of the class that defined this behavior */
        String definingClassName();

        /**
         * @return the class whose name {@link #definingClassName()} is (a lambda's hidden class
         *         stands for the class that wrote it); returned as is, without allocating, so the
         *         sampled turns can key their allocation by it and name it at read time
         */
        Class<?> definingClass();
    }

    /**
     * @param behavior a behavior
     * @return the class that defined it, named by {@link #nameOf}; allocates nothing
     */
    static Class<?> definingClass(Behavior<?> behavior) {
        if (behavior instanceof Defined) {
            return ((Defined) behavior).definingClass();
        }
        return behavior.getClass();
    }

    /**
     * @param c a class from {@link #definingClass}
     * @return its name, or for a lambda's hidden class the name of the class that wrote it
     */
    static String nameOf(Class<?> c) {
        final String name = c.getName();
        if (c.isHidden() || c.isSynthetic()) {
            final int marker = name.indexOf(LAMBDA_MARKER);
            if (marker > 0) {
                return name.substring(0, marker);
            }
        }
        return name;
    }

    /**
     * @param behavior a behavior
     * @return the name of the class that defined it
     */
    public static String definingClassName(Behavior<?> behavior) {
        if (behavior instanceof Defined) {
            return ((Defined) behavior).definingClassName();
        }
        return behavior.getClass().getName();
    }

    /**
     * @param function a function given to a factory of {@code Behaviors} (a lambda, a method
     *        reference or an object of the user's class)
     * @return the name of the class whose code made it
     */
    static String ofFunction(Object function) {
        final Class<?> c = function.getClass();
        final String name = c.getName();
        if (c.isHidden() || c.isSynthetic()) {
            final int marker = name.indexOf(LAMBDA_MARKER);
            if (marker > 0) {
                return name.substring(0, marker);
            }
        }
        return name;
    }
}
