package dev.troupe.benchmarks.troupe;

import dev.troupe.actor.AbstractBehavior;
import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Receive;
import dev.troupe.benchmarks.common.IdleTimeout;
import dev.troupe.benchmarks.common.Ping;
import dev.troupe.benchmarks.common.PingerMessage;
import dev.troupe.benchmarks.common.Pong;
import dev.troupe.benchmarks.common.PongerMessage;
import dev.troupe.benchmarks.common.Scenario;

/**
 * The ponger of a pair, on Troupe: answers every ping to its {@code replyTo}. Kept line for
 * line parallel to {@code dev.troupe.benchmarks.pekko.PekkoPonger}, on purpose: both systems run the
 * same code, so a difference in the numbers is the systems', not the rigs'.
 */
final class TroupePonger extends AbstractBehavior<PongerMessage> {

    /** {@code this}, or the other instance when the behavior switches on every message. */
    private Behavior<PongerMessage> next = this;

    private TroupePonger(ActorContext<PongerMessage> ctx) {
        super(ctx);
    }

    static Behavior<PongerMessage> create(Scenario scenario) {
        return Behaviors.setup(ctx -> {
            if (scenario == Scenario.RECEIVE_TIMEOUT) {
                ctx.setReceiveTimeout(Scenario.IDLE_TIMEOUT, IdleTimeout.INSTANCE);
            }
            TroupePonger first = new TroupePonger(ctx);
            if (scenario == Scenario.BEHAVIOR_SWITCH) {
                TroupePonger second = new TroupePonger(ctx);
                first.next = second;
                second.next = first;
            }
            return first;
        });
    }

    @Override
    public Receive<PongerMessage> createReceive() {
        return newReceiveBuilder()
                .onMessage(Ping.class, this::onPing)
                .onMessage(IdleTimeout.class, this::onIdle)
                .build();
    }

    @SuppressWarnings("unchecked")
    private Behavior<PongerMessage> onPing(Ping<?> ping) {
        ((ActorRef<PingerMessage>) ping.replyTo).tell(Pong.INSTANCE);
        return next;
    }

    private Behavior<PongerMessage> onIdle(IdleTimeout timeout) {
        return this;
    }
}
