package dev.troupe.actor.internal;

import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.SupervisorStrategy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * {@code Behaviors.supervise(b).onFailure(...)}: the wrapped behavior and the strategies, in
 * the order they were added. The interpreter unwraps it when the actor starts or switches to it
 * and registers the strategies with the actor's {@link Supervision}.
 */
public final class SupervisedBehavior<T> extends Behaviors.Supervise<T> implements BehaviorNames.Defined {

    private final Behavior<T> behavior;
    private final List<Class<? extends Throwable>> failures;
    private final List<SupervisorStrategy> strategies;

    private SupervisedBehavior(Behavior<T> behavior, List<Class<? extends Throwable>> failures, List<SupervisorStrategy> strategies) {
        this.behavior = behavior;
        this.failures = failures;
        this.strategies = strategies;
    }

    /**
     * @param behavior the supervised behavior
     * @param <T> the message type
     * @return a supervision with no strategies yet
     */
    public static <T> SupervisedBehavior<T> of(Behavior<T> behavior) {
        return new SupervisedBehavior<>(behavior, Collections.emptyList(), Collections.emptyList());
    }

    @Override
    public Behaviors.Supervise<T> onFailure(Class<? extends Throwable> failure, SupervisorStrategy strategy) {
        final List<Class<? extends Throwable>> f = new ArrayList<>(failures);
        final List<SupervisorStrategy> s = new ArrayList<>(strategies);
        f.add(Objects.requireNonNull(failure, "failure"));
        s.add(Objects.requireNonNull(strategy, "strategy"));
        return new SupervisedBehavior<>(behavior, Collections.unmodifiableList(f), Collections.unmodifiableList(s));
    }

    Behavior<T> wrapped() {
        return behavior;
    }

    List<Class<? extends Throwable>> failures() {
        return failures;
    }

    List<SupervisorStrategy> strategies() {
        return strategies;
    }

    @Override
    public String definingClassName() {
        return BehaviorNames.definingClassName(behavior);
    }

    @Override
    public Class<?> definingClass() {
        return BehaviorNames.definingClass(behavior);
    }

    @Override
    public String toString() {
        return "Behaviors.supervise(" + behavior + ")" + strategies;
    }
}
