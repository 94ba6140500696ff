package dev.troupe.persistence.internal;

import dev.troupe.actor.ActorRef;

/**
 * One side effect of an {@link EffectImpl}, in a singly linked chain (rarely more than one or
 * two). An effect is itself the chain's first node, so an effect with one side effect is one
 * object; set once, before the effect is handed to the runner, and read only on the entity's thread.
 */
public class SideEffect {
    public static final int RUN = 0;
    public static final int REPLY = 1;
    public static final int STOP = 2;
    public static final int UNSTASH_ALL = 3;

    /** One of the kinds above. */
    public int kind;
    /** The reply function or the callback, or null. */
    public Object function;
    /** Whom to reply to, or null. */
    public ActorRef<Object> replyTo;
    SideEffect next;

    SideEffect() {
    }

    SideEffect(int kind, Object function, ActorRef<Object> replyTo) {
        set(kind, function, replyTo);
    }

    final void set(int kind, Object function, ActorRef<Object> replyTo) {
        this.kind = kind;
        this.function = function;
        this.replyTo = replyTo;
    }

    /** @return the next side effect, or null */
    public SideEffect next() {
        return next;
    }
}
