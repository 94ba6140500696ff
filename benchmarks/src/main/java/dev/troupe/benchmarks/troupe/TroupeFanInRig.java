package dev.troupe.benchmarks.troupe;

import dev.troupe.actor.AbstractBehavior;
import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Props;
import dev.troupe.actor.Receive;
import dev.troupe.benchmarks.common.FanInMessage;
import dev.troupe.benchmarks.common.FanInRig;
import dev.troupe.benchmarks.common.Flush;
import dev.troupe.benchmarks.common.Tick;

/**
 * One fan-in target on Troupe, on its default dispatcher.
 *
 * <p>Mirrors {@code dev.troupe.benchmarks.pekko.PekkoFanInRig} step for step, on purpose: both systems
 * run the same scenario, so a difference in the numbers is the systems', not the rigs'.
 */
public final class TroupeFanInRig implements FanInRig {

    private final ActorSystem system;
    private final ActorRef<FanInMessage> target;
    private final long[] ticks = new long[1];

    /** The default: the target gets the system's default mailbox (unbounded, growing by chunks). */
    public static final String UNBOUNDED = "unbounded";

    /**
     * The target gets a bounded mailbox of 65,536 slots, more than the 4 x 10,000 messages that
     * can be queued at once here, so nothing overflows. Reported separately, labelled.
     */
    public static final String BOUNDED_65536 = "bounded65536";

    /** Starts a system with the default settings and spawns the target with the default mailbox. */
    public TroupeFanInRig() {
        this(UNBOUNDED);
    }

    /**
     * Starts a system with the default settings and spawns the target.
     *
     * @param mailbox {@link #UNBOUNDED} or {@link #BOUNDED_65536}
     */
    public TroupeFanInRig(String mailbox) {
        Props props = switch (mailbox) {
            case UNBOUNDED -> Props.empty();
            case BOUNDED_65536 -> Props.empty().withBoundedMailbox(65_536);
            default -> throw new IllegalArgumentException("unknown Troupe fan-in mailbox '" + mailbox
                    + "', expected " + UNBOUNDED + " or " + BOUNDED_65536);
        };
        this.system = TroupeSystems.create("troupe-fan-in");
        this.target = system.spawn(Target.create(ticks), "target", props);
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
        TroupeSystems.terminate(system);
    }

    /** Counts ticks; answers flushes. Parallel to the Pekko target. */
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
