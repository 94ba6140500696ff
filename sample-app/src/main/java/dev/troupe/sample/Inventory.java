package dev.troupe.sample;

import dev.troupe.cluster.ServiceKey;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;

import java.util.HashMap;
import java.util.Map;

/**
 * The inventory: routes each command to its SKU's actor, spawning the actor on first use.
 * SKU actors are plain children, without per-actor meters, so a catalogue of any size
 * adds no metric series.
 */
public final class Inventory {

    /** A command for one SKU. */
    public record ForSku(String sku, Sku.Command command) {
    }

    /** The id of the service key workers register their inventory under. */
    public static final String SERVICE_KEY_ID = "inventory";

    /** The key API nodes route by: every worker's inventory, cluster-wide. */
    public static final ServiceKey<ForSku> SERVICE_KEY = ServiceKey.create(ForSku.class, SERVICE_KEY_ID);

    private Inventory() {
    }

    /**
     * @param events where SKU actors report refusals
     * @return the inventory
     */
    public static Behavior<ForSku> create(ActorRef<Audit.Message> events) {
        return Behaviors.setup(ctx -> {
            final Map<String, ActorRef<Sku.Command>> skus = new HashMap<>();
            return Behaviors.receiveMessage(msg -> {
                ActorRef<Sku.Command> sku = skus.get(msg.sku());
                if (sku == null) {
                    sku = ctx.spawn(Sku.create(msg.sku(), events), "sku-" + msg.sku());
                    skus.put(msg.sku(), sku);
                }
                sku.tell(msg.command());
                return Behaviors.same();
            });
        });
    }
}
