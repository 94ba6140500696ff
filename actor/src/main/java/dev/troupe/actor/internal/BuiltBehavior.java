package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.ExtensibleBehavior;
import dev.troupe.actor.Receive;
import dev.troupe.actor.Signal;

/**
 * The behavior of {@code Behaviors.receive(Class).onMessage(...).build()}: the compiled cases
 * and the message class the builder was given. A message that is not of that class (it can only
 * arrive through an unchecked cast, {@code unsafeUpcast} or a raw ref) is a dead letter with
 * reason {@code wrong-type}, so a mistyped sender shows up as such instead of as an
 * {@code unhandled} message or a {@code ClassCastException} in a handler.
 */
public final class BuiltBehavior<T> extends ExtensibleBehavior<T> implements BehaviorNames.Defined {

    private final Class<T> type;
    private final Receive<T> cases;
    /** The first handler the user gave, or the class that called {@code build()} when there was none. */
    private final Object definedBy;

    /**
     * @param type the message class
     * @param cases the compiled cases
     * @param definedBy the first handler the user gave (a function), or the {@link Class} that built the behavior
     */
    public BuiltBehavior(Class<T> type, Receive<T> cases, Object definedBy) {
        this.type = type;
        this.cases = cases;
        this.definedBy = definedBy;
    }

    @Override
    public Behavior<T> receive(ActorContext<T> ctx, T msg) {
        if (!type.isInstance(msg)) {
            ctx.system().deadLetters().publish(msg, ctx.self().path(), DeadLetterReason.WRONG_TYPE);
            return Behaviors.same();
        }
        return cases.receiveMessage(msg);
    }

    @Override
    public Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
        return cases.receiveSignal(signal);
    }

    @Override
    public String definingClassName() {
        return definedBy instanceof Class ? ((Class<?>) definedBy).getName() : BehaviorNames.ofFunction(definedBy);
    }

    @Override
    public Class<?> definingClass() {
        return definedBy instanceof Class ? (Class<?>) definedBy : definedBy.getClass();
    }

    @Override
    public String toString() {
        return "Behaviors.receive(" + type.getName() + ") of " + definingClassName();
    }
}
