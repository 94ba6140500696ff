package dev.troupe.benchmarks.troupe;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.benchmarks.common.Completion;
import dev.troupe.benchmarks.common.PingPongRig;
import dev.troupe.benchmarks.common.PingerMessage;
import dev.troupe.benchmarks.common.PongerMessage;
import dev.troupe.benchmarks.common.Scenario;
import dev.troupe.benchmarks.common.Start;

/**
 * Ping-pong pairs on Troupe, on its default dispatcher.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.pekko.PekkoPingPongRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
public final class TroupePingPongRig implements PingPongRig {

    private final ActorSystem system;
    private final ActorRef<PingerMessage>[] pingers;
    private final Completion completion = new Completion();

    /**
     * Starts a system and spawns the pairs.
     *
     * @param pairs the number of pairs, dividing {@link #ROUND_TRIPS_PER_BATCH}
     * @param scenario the variant
     */
    public TroupePingPongRig(int pairs, Scenario scenario) {
        this(pairs, scenario, true);
    }

    /**
     * Starts a system and spawns the pairs.
     *
     * @param pairs the number of pairs, dividing {@link #ROUND_TRIPS_PER_BATCH}
     * @param scenario the variant
     * @param allocationAttribution whether the system attributes sampled turns' allocation (the default is on)
     */
    public TroupePingPongRig(int pairs, Scenario scenario, boolean allocationAttribution) {
        this(pairs, scenario, TroupeSystems.create("troupe-ping-pong", allocationAttribution));
    }

    /**
     * The rig on a system made with {@code ActorSystemSettings.defaults()} and nothing else: only
     * API every build of the runtime has had, so the local speed guard can run it on an older build.
     *
     * @param pairs the number of pairs, dividing {@link #ROUND_TRIPS_PER_BATCH}
     * @param scenario the variant
     * @return the rig
     */
    public static TroupePingPongRig withDefaults(int pairs, Scenario scenario) {
        return new TroupePingPongRig(pairs, scenario, TroupeSystems.create("troupe-ping-pong"));
    }

    @SuppressWarnings("unchecked")
    private TroupePingPongRig(int pairs, Scenario scenario, ActorSystem system) {
        int roundTrips = PingPongRig.roundTripsPerPair(pairs);
        this.system = system;
        this.pingers = new ActorRef[pairs];
        for (int i = 0; i < pairs; i++) {
            ActorRef<PongerMessage> ponger = system.spawn(TroupePonger.create(scenario), "ponger-" + i);
            pingers[i] = system.spawn(TroupePinger.create(scenario, ponger, roundTrips, completion),
                    "pinger-" + i);
        }
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
        TroupeSystems.terminate(system);
    }
}
