package dev.troupe.actor;

/**
 * The class style of writing a behavior: state in fields, cases from
 * {@link #newReceiveBuilder()}. Create instances inside {@link Behaviors#setup}, which
 * hands over the context. {@link #createReceive()} is called once, on first use.
 *
 * <pre>{@code
 * class Counter extends AbstractBehavior<Counter.Command> {
 *     interface Command {}
 *     record Increment() implements Command {}
 *     static Behavior<Command> create() { return Behaviors.setup(Counter::new); }
 *     private int n;
 *     private Counter(ActorContext<Command> ctx) { super(ctx); }
 *     public Receive<Command> createReceive() {
 *         return newReceiveBuilder().onMessage(Increment.class, m -> { n++; return this; }).build();
 *     }
 * }
 * }</pre>
 *
 * @param <T> the type of message the actor accepts
 */
public abstract class AbstractBehavior<T> extends ExtensibleBehavior<T> {

    private final ActorContext<T> context;
    private Receive<T> receive;

    /**
     * @param context the actor's context, from {@link Behaviors#setup}
     */
    protected AbstractBehavior(ActorContext<T> context) {
        if (context == null) {
            throw new IllegalArgumentException("context must not be null: create an AbstractBehavior inside Behaviors.setup");
        }
        this.context = context;
    }

    /** @return the actor's context */
    protected ActorContext<T> context() {
        return context;
    }

    /** @return the message and signal cases of this behavior */
    public abstract Receive<T> createReceive();

    /** @return a new builder for {@link #createReceive()} */
    protected ReceiveBuilder<T> newReceiveBuilder() {
        return new ReceiveBuilder<>();
    }

    private Receive<T> cases() {
        Receive<T> r = receive;
        if (r == null) {
            r = createReceive();
            if (r == null) {
                throw new IllegalStateException(getClass().getName() + ".createReceive() returned null");
            }
            receive = r;
        }
        return r;
    }

    @Override
    public final Behavior<T> receive(ActorContext<T> ctx, T msg) {
        return cases().receiveMessage(msg);
    }

    @Override
    public final Behavior<T> receiveSignal(ActorContext<T> ctx, Signal signal) {
        return cases().receiveSignal(signal);
    }
}
