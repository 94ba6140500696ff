package dev.troupe.benchmarks.pekko;

import dev.troupe.benchmarks.common.Completion;
import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.PingerMessage;
import dev.troupe.benchmarks.common.PongerMessage;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.common.Start;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Ping-pong pairs on Apache Pekko typed, on its default dispatcher.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.troupe.TroupePingPongRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
public final class PekkoPingPongRig implements PingPongRig {

    private final ActorSystem<Void> system;
    private final ActorRef<PingerMessage>[] pingers;
    private final Completion completion = new Completion();

    /**
     * Starts a system and spawns the pairs.
     *
     * @param pairs the number of pairs, dividing {@link #ROUND_TRIPS_PER_BATCH}
     * @param scenario the variant
     * @param tuning {@link PekkoSystems#DEFAULT} or {@link PekkoSystems#THROUGHPUT_64}
     */
    @SuppressWarnings("unchecked")
    public PekkoPingPongRig(int pairs, Scenario scenario, String tuning) {
        int roundTrips = PingPongRig.roundTripsPerPair(pairs);
        ActorRef<PingerMessage>[] pingers = new ActorRef[pairs];
        this.system = PekkoSystems.create("pekko-ping-pong", tuning, ctx -> {
            for (int i = 0; i < pairs; i++) {
                ActorRef<PongerMessage> ponger = ctx.spawn(PekkoPonger.create(scenario), "ponger-" + i);
                pingers[i] = ctx.spawn(PekkoPinger.create(scenario, ponger, roundTrips, completion), "pinger-" + i);
            }
        });
        this.pingers = pingers;
    }

    @Override
    public void runBatch() {
        final ActorRef<PingerMessage>[] pingers = this.pingers;
        completion.arm(pingers.length);
        for (int i = 0; i < pingers.length; i++) {
            pingers[i].tell(Start.INSTANCE);
        }
        completion.await();
    }

    @Override
    public int pairs() {
        return pingers.length;
    }

    @Override
    public void close() {
        PekkoSystems.terminate(system);
    }
}
