package dev.troupe.benchmarks.pekko;

import dev.troupe.benchmarks.common.FanInMessage;
import dev.troupe.benchmarks.common.FanInRig;
import dev.troupe.benchmarks.common.Flush;
import dev.troupe.benchmarks.common.Tick;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One fan-in target on Apache Pekko typed, on its default dispatcher.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.troupe.TroupeFanInRig} step for step, on purpose: both
 * systems run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
public final class PekkoFanInRig implements FanInRig {

    private final ActorSystem<Void> system;
    private final ActorRef<FanInMessage> target;
    private final long[] ticks = new long[1];

    /** @param tuning {@link PekkoSystems#DEFAULT} or {@link PekkoSystems#THROUGHPUT_64} */
    public PekkoFanInRig(String tuning) {
        @SuppressWarnings("unchecked")
        ActorRef<FanInMessage>[] spawned = new ActorRef[1];
        this.system = PekkoSystems.create("pekko-fan-in", tuning, ctx -> spawned[0] = ctx.spawn(Target.create(ticks), "target"));
        this.target = spawned[0];
    }

    @Override
    public void sendBatch(Sender sender) {
        final ActorRef<FanInMessage> target = this.target;
        sender.completion.arm(1);
        for (int i = 1; i < MESSAGES_PER_BATCH; i++) {
            target.tell(Tick.INSTANCE);
        }
        target.tell(sender.flush);
        sender.completion.await();
    }

    @Override
    public long ticksProcessed() {
        return ticks[0];
    }

    @Override
    public void close() {
        PekkoSystems.terminate(system);
    }

    /** Counts ticks; answers flushes. Parallel to the Troupe target. */
    private static final class Target extends AbstractBehavior<FanInMessage> {

        private final long[] ticks;

        private Target(ActorContext<FanInMessage> ctx, long[] ticks) {
            super(ctx);
            this.ticks = ticks;
        }

        static Behavior<FanInMessage> create(long[] ticks) {
            return Behaviors.setup(ctx -> new Target(ctx, ticks));
        }

        @Override
        public Receive<FanInMessage> createReceive() {
            return newReceiveBuilder()
                    .onMessage(Tick.class, this::onTick)
                    .onMessage(Flush.class, this::onFlush)
                    .build();
        }

        private Behavior<FanInMessage> onTick(Tick tick) {
            ticks[0]++;
            return this;
        }

        private Behavior<FanInMessage> onFlush(Flush flush) {
            flush.completion.countDown();
            return this;
        }
    }
}
