package dev.troupe.sample;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.sharding.EntityContext;
import dev.troupe.persistence.Effect;
import dev.troupe.persistence.EventSourcedBehavior;
import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.RetentionCriteria;

/**
 * One SKU's stock: a sharded, event-sourced entity. Exactly one SKU actor per id runs in the whole
 * cluster (while the members' views agree), on the node that owns its shard; its stock is the sum of
 * its events ({@link StockAdded}, {@link Reserved}, {@link Released}), stored in the application's
 * database, with a snapshot of the {@link State} every {@code inventory.snapshot-every} events.
 *
 * <p>A command that changes the stock is answered only once its event is durable: a reservation
 * answered 200 survives a restart, a {@code kill -9} of its node, or its shard moving to another
 * node, where the SKU recovers from the journal. While a write is in flight the SKU stashes the
 * commands that arrive. A write the database refuses (down, timed out) is answered
 * {@link Unavailable}, and the SKU stops; its next command starts it again and it recovers once the
 * database answers.
 */
public final class Sku extends EventSourcedBehavior<Sku.Command, Sku.Event, Sku.State> {

    /** The entity type's name, and the first part of every SKU's persistence id. */
    public static final String TYPE = "Sku";

    /**
     * What a SKU accepts. Crosses the remote transport to the SKU's owner, so the JSON names the
     * command's kind.
     */
    @JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME)
    @JsonSubTypes({@JsonSubTypes.Type(Restock.class), @JsonSubTypes.Type(Reserve.class),
        @JsonSubTypes.Type(Release.class), @JsonSubTypes.Type(Query.class), @JsonSubTypes.Type(Stop.class)})
    public sealed interface Command permits Restock, Reserve, Release, Query, Stop {
    }

    /** Adds stock. */
    public record Restock(int quantity, ActorRef<Reply> replyTo) implements Command {
    }

    /** Holds stock for an order, if enough is available. */
    public record Reserve(int quantity, ActorRef<Reply> replyTo) implements Command {
    }

    /** Gives held stock back, if that much is held. */
    public record Release(int quantity, ActorRef<Reply> replyTo) implements Command {
    }

    /** Asks for the current stock. */
    public record Query(ActorRef<Reply> replyTo) implements Command {
    }

    /** The stop message: the shard is moving or the SKU is passivated. Its events are stored already. */
    public enum Stop implements Command {
        INSTANCE
    }

    /** What the journal keeps: each change of the stock. Stored as JSON with the class as manifest. */
    public sealed interface Event permits StockAdded, Reserved, Released {
    }

    /** Stock arrived. */
    public record StockAdded(long quantity) implements Event {
    }

    /** Stock was held for an order. */
    public record Reserved(long quantity) implements Event {
    }

    /** Held stock was given back. */
    public record Released(long quantity) implements Event {
    }

    /** The stock: what its events add up to, and what a snapshot stores. */
    public record State(long available, long reserved) {
        static final State EMPTY = new State(0, 0);
    }

    /** Every answer. */
    public sealed interface Reply permits Stock, Rejected, Unavailable {
    }

    /** The stock after the command. */
    public record Stock(String sku, long available, long reserved) implements Reply {
    }

    /** The command was refused; the stock is unchanged. */
    public record Rejected(String sku, String reason, long available, long reserved) implements Reply {
    }

    /**
     * The change could not be stored: the database did not take it (reason {@code unavailable},
     * {@code timeout}, ...). Whether a write that failed this way reached the database before the
     * failure is not known, so the change may or may not be in the stock.
     */
    public record Unavailable(String sku, String reason, String detail) implements Reply {
    }

    private final String sku;
    private final ActorRef<Audit.Message> audit;
    private final InventoryMeters meters;
    private final RetentionCriteria retention;

    private Sku(ActorContext<Command> ctx, String sku, ActorRef<Audit.Message> audit, InventoryMeters meters, int snapshotEvery) {
        super(ctx, PersistenceId.of(TYPE, sku));
        this.sku = sku;
        this.audit = audit;
        this.meters = meters;
        this.retention = RetentionCriteria.snapshotEvery(snapshotEvery, 2);
    }

    /**
     * @param entity the SKU's id and shard region
     * @param audit where refusals are reported
     * @param meters the counts of commands processed
     * @param snapshotEvery a snapshot of the stock every this many events
     * @return the SKU, recovering its stock before its first command
     */
    public static Behavior<Command> create(EntityContext<Command> entity, ActorRef<Audit.Message> audit, InventoryMeters meters,
                                           int snapshotEvery) {
        return Behaviors.setup(ctx -> new Sku(ctx, entity.entityId(), audit, meters, snapshotEvery));
    }

    @Override
    protected State emptyState() {
        return State.EMPTY;
    }

    @Override
    protected Effect<Event, State> onCommand(State state, Command command) {
        if (command instanceof Restock r) {
            return Effect().persist(new StockAdded(r.quantity()))
                .thenRun(s -> meters.restocked())
                .thenReply(r.replyTo(), this::stock);
        }
        if (command instanceof Reserve r) {
            if (state.available() < r.quantity()) {
                meters.reserved(false);
                audit.tell(new Audit.Event(sku, "insufficient-stock"));
                return Effect().reply(r.replyTo(), new Rejected(sku, "insufficient stock", state.available(), state.reserved()));
            }
            return Effect().persist(new Reserved(r.quantity()))
                .thenRun(s -> meters.reserved(true))
                .thenReply(r.replyTo(), this::stock);
        }
        if (command instanceof Release r) {
            if (state.reserved() < r.quantity()) {
                meters.released(false);
                audit.tell(new Audit.Event(sku, "over-release"));
                return Effect().reply(r.replyTo(), new Rejected(sku, "not that much reserved", state.available(), state.reserved()));
            }
            return Effect().persist(new Released(r.quantity()))
                .thenRun(s -> meters.released(true))
                .thenReply(r.replyTo(), this::stock);
        }
        if (command instanceof Query q) {
            return Effect().reply(q.replyTo(), stock(state));
        }
        return Effect().stop(); // Stop: every event is stored already; the next incarnation recovers them
    }

    @Override
    protected State onEvent(State state, Event event) {
        if (event instanceof StockAdded e) {
            return new State(state.available() + e.quantity(), state.reserved());
        }
        if (event instanceof Reserved e) {
            return new State(state.available() - e.quantity(), state.reserved() + e.quantity());
        }
        final Released e = (Released) event;
        return new State(state.available() + e.quantity(), state.reserved() - e.quantity());
    }

    /** A command the SKU could not handle (its write failed, its recovery failed, its stash was full): say so. */
    @Override
    protected void onCommandRefused(Command command, PersistenceException failure) {
        final ActorRef<Reply> replyTo = replyTo(command);
        if (replyTo != null) {
            replyTo.tell(new Unavailable(sku, failure.reason().tag(), failure.getMessage()));
        }
    }

    @Override
    protected RetentionCriteria retentionCriteria() {
        return retention;
    }

    private Stock stock(State s) {
        return new Stock(sku, s.available(), s.reserved());
    }

    private static ActorRef<Reply> replyTo(Command command) {
        if (command instanceof Restock r) {
            return r.replyTo();
        }
        if (command instanceof Reserve r) {
            return r.replyTo();
        }
        if (command instanceof Release r) {
            return r.replyTo();
        }
        if (command instanceof Query q) {
            return q.replyTo();
        }
        return null;
    }
}
