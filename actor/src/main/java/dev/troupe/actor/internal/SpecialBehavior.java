package dev.troupe.actor.internal;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

/**
 * The marker behaviors: same, unhandled, stopped, empty, ignore. Each is a singleton,
 * compared by identity on the message path.
 */
public final class SpecialBehavior<T> extends Behavior<T> implements BehaviorNames.Defined {

    /** Keep the current behavior. */
    public static final SpecialBehavior<Object> SAME = new SpecialBehavior<>("same");
    /** Keep the current behavior; the message was not handled. */
    public static final SpecialBehavior<Object> UNHANDLED = new SpecialBehavior<>("unhandled");
    /** Stop the actor. */
    public static final SpecialBehavior<Object> STOPPED = new SpecialBehavior<>("stopped");
    /** Treat every message as unhandled. */
    public static final SpecialBehavior<Object> EMPTY = new SpecialBehavior<>("empty");
    /** Drop every message silently (it is handled, not a dead letter). */
    public static final SpecialBehavior<Object> IGNORE = new SpecialBehavior<>("ignore");

    private final String name;

    /**
     * @param <T> the message type
     * @return {@link #EMPTY}, typed
     */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> empty() {
        return (Behavior<T>) EMPTY;
    }

    private SpecialBehavior(String name) {
        this.name = name;
    }

    @Override
    public String definingClassName() {
        return Behaviors.class.getName();
    }

    @Override
    public Class<?> definingClass() {
        return Behaviors.class;
    }

    @Override
    public String toString() {
        return "Behaviors." + name + "()";
    }
}
