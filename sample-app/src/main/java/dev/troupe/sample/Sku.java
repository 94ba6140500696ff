package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.sharding.EntityContext;
import dev.troupe.cluster.sharding.ShardingEnvelope;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One SKU's stock: a sharded entity, so exactly one SKU actor per id runs in the whole cluster
 * (while the members' views agree), on the node that owns its shard. Its state lives in the
 * behavior and is touched only by the actor's own turns, one message at a time.
 *
 * <p>When the SKU's shard moves to another node (a node joins, or leaves in a rolling restart),
 * the SKU gets {@link Stop} after every command sent before it, and hands its stock to its next
 * incarnation: a {@link Restore} sent to its own id, which the shard region holds during the
 * hand-off and delivers on the new owner. A real service would save the stock in a database
 * instead; a SKU on a node killed with {@code kill -9} loses its stock with the node's memory.
 */
public final class Sku {

    /**
     * What a SKU accepts. Crosses the remote transport to the SKU's owner, so the JSON names the
     * command's kind.
     */
    @JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME)
    @JsonSubTypes({@JsonSubTypes.Type(Restock.class), @JsonSubTypes.Type(Reserve.class),
        @JsonSubTypes.Type(Release.class), @JsonSubTypes.Type(Query.class), @JsonSubTypes.Type(Restore.class),
        @JsonSubTypes.Type(Stop.class)})
    public sealed interface Command permits Restock, Reserve, Release, Query, Restore, Stop {
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

    /** The stock of the SKU's previous incarnation, added to this one's. */
    public record Restore(long available, long reserved) implements Command {
    }

    /** The stop message: the shard is moving or the SKU is passivated. */
    public enum Stop implements Command {
        INSTANCE
    }

    /** Every answer. */
    public sealed interface Reply permits Stock, Rejected {
    }

    /** The stock after the command. */
    public record Stock(String sku, long available, long reserved) implements Reply {
    }

    /** The command was refused; the stock is unchanged. */
    public record Rejected(String sku, String reason, long available, long reserved) implements Reply {
    }

    private Sku() {
    }

    /**
     * @param entity the SKU's id and shard region
     * @param events where refusals are reported
     * @param meters the counts of commands processed
     * @return a SKU with no stock
     */
    public static Behavior<Command> create(EntityContext<Command> entity, ActorRef<Audit.Message> events, InventoryMeters meters) {
        final String sku = entity.entityId();
        final long[] state = new long[2]; // [available, reserved], owned by this actor's turns only
        return Behaviors.receiveMessage(cmd -> {
            if (cmd instanceof Restock r) {
                state[0] += r.quantity();
                meters.restocked();
                r.replyTo().tell(new Stock(sku, state[0], state[1]));
            } else if (cmd instanceof Reserve r) {
                if (state[0] >= r.quantity()) {
                    state[0] -= r.quantity();
                    state[1] += r.quantity();
                    meters.reserved(true);
                    r.replyTo().tell(new Stock(sku, state[0], state[1]));
                } else {
                    meters.reserved(false);
                    events.tell(new Audit.Event(sku, "insufficient-stock"));
                    r.replyTo().tell(new Rejected(sku, "insufficient stock", state[0], state[1]));
                }
            } else if (cmd instanceof Release r) {
                if (state[1] >= r.quantity()) {
                    state[1] -= r.quantity();
                    state[0] += r.quantity();
                    meters.released(true);
                    r.replyTo().tell(new Stock(sku, state[0], state[1]));
                } else {
                    meters.released(false);
                    events.tell(new Audit.Event(sku, "over-release"));
                    r.replyTo().tell(new Rejected(sku, "not that much reserved", state[0], state[1]));
                }
            } else if (cmd instanceof Query q) {
                q.replyTo().tell(new Stock(sku, state[0], state[1]));
            } else if (cmd instanceof Restore r) {
                state[0] += r.available();
                state[1] += r.reserved();
            } else if (cmd == Stop.INSTANCE) {
                if (state[0] != 0 || state[1] != 0) {
                    // To this SKU's id through the region: held while the shard moves, then delivered on the new owner.
                    entity.shard().<ShardingEnvelope<Command>>unsafeUpcast().tell(new ShardingEnvelope<>(sku, new Restore(state[0], state[1])));
                }
                return Behaviors.stopped();
            }
            return Behaviors.same();
        });
    }
}
