package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One SKU's stock. Its state lives in the behavior and is touched only by the actor's own
 * turns, one message at a time.
 */
public final class Sku {

    /**
     * What a SKU actor accepts. Travels inside {@link Inventory.ForSku} between an API node and
     * a worker, so the JSON names the command's kind.
     */
    @JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME)
    @JsonSubTypes({@JsonSubTypes.Type(Restock.class), @JsonSubTypes.Type(Reserve.class),
        @JsonSubTypes.Type(Release.class), @JsonSubTypes.Type(Query.class)})
    public sealed interface Command permits Restock, Reserve, Release, Query {
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
     * @param sku the SKU's id
     * @param events where refusals are reported
     * @return a SKU with no stock
     */
    public static Behavior<Command> create(String sku, ActorRef<Audit.Message> events) {
        final long[] state = new long[2]; // [available, reserved], owned by this actor's turns only
        return Behaviors.receiveMessage(cmd -> {
            if (cmd instanceof Restock r) {
                state[0] += r.quantity();
                r.replyTo().tell(new Stock(sku, state[0], state[1]));
            } else if (cmd instanceof Reserve r) {
                if (state[0] >= r.quantity()) {
                    state[0] -= r.quantity();
                    state[1] += r.quantity();
                    r.replyTo().tell(new Stock(sku, state[0], state[1]));
                } else {
                    events.tell(new Audit.Event(sku, "insufficient-stock"));
                    r.replyTo().tell(new Rejected(sku, "insufficient stock", state[0], state[1]));
                }
            } else if (cmd instanceof Release r) {
                if (state[1] >= r.quantity()) {
                    state[1] -= r.quantity();
                    state[0] += r.quantity();
                    r.replyTo().tell(new Stock(sku, state[0], state[1]));
                } else {
                    events.tell(new Audit.Event(sku, "over-release"));
                    r.replyTo().tell(new Rejected(sku, "not that much reserved", state[0], state[1]));
                }
            } else if (cmd instanceof Query q) {
                q.replyTo().tell(new Stock(sku, state[0], state[1]));
            }
            return Behaviors.same();
        });
    }
}
