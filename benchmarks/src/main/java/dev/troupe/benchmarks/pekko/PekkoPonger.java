package dev.troupe.benchmarks.pekko;

import dev.troupe.benchmarks.common.IdleTimeout;
import dev.troupe.benchmarks.common.Ping;
import dev.troupe.benchmarks.common.PingerMessage;
import dev.troupe.benchmarks.common.PongerMessage;
import dev.troupe.benchmarks.common.Pong;
import dev.troupe.benchmarks.common.Scenario;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The ponger of a pair, on Pekko: answers every ping to its {@code replyTo}. Kept line for
 * line parallel to {@code dev.troupe.benchmarks.troupe.TroupePonger}, on purpose: both systems run the
 * same code, so a difference in the numbers is the systems', not the rigs'.
 */
final class PekkoPonger extends AbstractBehavior<PongerMessage> {

    /** {@code this}, or the other instance when the behavior switches on every message. */
    private Behavior<PongerMessage> next = this;

    private PekkoPonger(ActorContext<PongerMessage> ctx) {
        super(ctx);
    }

    static Behavior<PongerMessage> create(Scenario scenario) {
        return Behaviors.setup(ctx -> {
            if (scenario == Scenario.RECEIVE_TIMEOUT) {
                ctx.setReceiveTimeout(Scenario.IDLE_TIMEOUT, IdleTimeout.INSTANCE);
            }
            PekkoPonger first = new PekkoPonger(ctx);
            if (scenario == Scenario.BEHAVIOR_SWITCH) {
                PekkoPonger second = new PekkoPonger(ctx);
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
