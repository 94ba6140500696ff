package dev.troupe.benchmarks.pekko;

import dev.troupe.benchmarks.common.Completion;
import dev.troupe.benchmarks.common.IdleTimeout;
import dev.troupe.benchmarks.common.Ping;
import dev.troupe.benchmarks.common.PingerMessage;
import dev.troupe.benchmarks.common.PongerMessage;
import dev.troupe.benchmarks.common.Pong;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.common.Start;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The pinger of a pair, on Pekko. Kept line for line parallel to
 * {@code dev.troupe.benchmarks.troupe.TroupePinger}, on purpose: both systems run the same code, so a
 * difference in the numbers is the systems', not the rigs'.
 */
final class PekkoPinger extends AbstractBehavior<PingerMessage> {

    /** The round-trip count, shared by the two behavior instances of the switching scenario. */
    private static final class State {
        int remaining;
    }

    private final ActorRef<PongerMessage> ponger;
    private final Ping<ActorRef<PingerMessage>> ping;
    private final int roundTrips;
    private final Completion completion;
    private final State state;
    /** {@code this}, or the other instance when the behavior switches on every message. */
    private Behavior<PingerMessage> next = this;

    private PekkoPinger(ActorContext<PingerMessage> ctx, ActorRef<PongerMessage> ponger,
            Ping<ActorRef<PingerMessage>> ping, int roundTrips, Completion completion, State state) {
        super(ctx);
        this.ponger = ponger;
        this.ping = ping;
        this.roundTrips = roundTrips;
        this.completion = completion;
        this.state = state;
    }

    static Behavior<PingerMessage> create(Scenario scenario, ActorRef<PongerMessage> ponger, int roundTrips,
            Completion completion) {
        return Behaviors.setup(ctx -> {
            if (scenario == Scenario.RECEIVE_TIMEOUT) {
                ctx.setReceiveTimeout(Scenario.IDLE_TIMEOUT, IdleTimeout.INSTANCE);
            }
            Ping<ActorRef<PingerMessage>> ping = new Ping<>(ctx.getSelf());
            State state = new State();
            PekkoPinger first = new PekkoPinger(ctx, ponger, ping, roundTrips, completion, state);
            if (scenario == Scenario.BEHAVIOR_SWITCH) {
                PekkoPinger second = new PekkoPinger(ctx, ponger, ping, roundTrips, completion, state);
                first.next = second;
                second.next = first;
            }
            return first;
        });
    }

    @Override
    public Receive<PingerMessage> createReceive() {
        return newReceiveBuilder()
                .onMessage(Pong.class, this::onPong)
                .onMessage(Start.class, this::onStart)
                .onMessage(IdleTimeout.class, this::onIdle)
                .build();
    }

    private Behavior<PingerMessage> onStart(Start start) {
        state.remaining = roundTrips;
        ponger.tell(ping);
        return next;
    }

    private Behavior<PingerMessage> onPong(Pong pong) {
        if (--state.remaining > 0) {
            ponger.tell(ping);
        } else {
            completion.countDown();
        }
        return next;
    }

    private Behavior<PingerMessage> onIdle(IdleTimeout timeout) {
        return this;
    }
}
