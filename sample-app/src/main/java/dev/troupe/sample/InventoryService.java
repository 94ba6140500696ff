package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Asks the inventory's actors; every call is one message to one SKU actor and one reply.
 *
 * <p>{@code inventory.role} decides where the SKU actors live:
 * <ul>
 * <li>{@code standalone} (the default) and {@code worker}: in this node's {@code inventory} actor;</li>
 * <li>{@code api}: on the workers. Each SKU belongs to one worker, chosen by the hash of its id over
 * the {@code ActorRef<Inventory.ForSku>} beans the starter makes from {@code troupe.remote.refs.*}
 * (in the order of their names), and every request for it is asked of that worker's inventory.</li>
 * </ul>
 */
@Service
public class InventoryService {

    private static final Pattern SKU_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String LOCAL_INVENTORY = "inventoryRef";

    private final List<String> names = new ArrayList<>();
    private final List<ActorRef<Inventory.ForSku>> inventories = new ArrayList<>();
    private final ActorRef<Audit.Message> audit;
    private final ActorSystem system;
    private final Duration timeout;
    private final boolean api;

    /**
     * @param inventories every {@code ActorRef<Inventory.ForSku>} bean by name: the local
     *                    {@code inventory} actor's ref, or on an API node the remote refs to the workers
     */
    public InventoryService(Map<String, ActorRef<Inventory.ForSku>> inventories, ActorRef<Audit.Message> audit,
                            ActorSystem system, @Value("${inventory.ask-timeout:3s}") Duration timeout,
                            @Value("${inventory.role:standalone}") String role) {
        this.audit = audit;
        this.system = system;
        this.timeout = timeout;
        switch (role) {
            case "api" -> {
                this.api = true;
                for (Map.Entry<String, ActorRef<Inventory.ForSku>> e : new TreeMap<>(inventories).entrySet()) {
                    names.add(e.getKey());
                    this.inventories.add(e.getValue());
                }
                if (this.inventories.isEmpty()) {
                    throw new IllegalStateException("inventory.role=api needs at least one worker: declare"
                        + " troupe.remote.refs.<name>.peer, .path=/user/inventory and .message-type="
                        + Inventory.ForSku.class.getCanonicalName());
                }
            }
            case "standalone", "worker" -> {
                this.api = false;
                final ActorRef<Inventory.ForSku> local = inventories.get(LOCAL_INVENTORY);
                if (local == null) {
                    throw new IllegalStateException("inventory.role=" + role + " needs the local inventory actor");
                }
                names.add(LOCAL_INVENTORY);
                this.inventories.add(local);
            }
            default -> throw new IllegalArgumentException("inventory.role must be standalone, api or worker, was '" + role + "'");
        }
    }

    /**
     * @return the names of the inventories this node asks, in routing order
     */
    public List<String> inventories() {
        return List.copyOf(names);
    }

    public CompletionStage<Sku.Reply> restock(String sku, int quantity) {
        return ask(sku, replyTo -> new Sku.Restock(positive(quantity), replyTo));
    }

    public CompletionStage<Sku.Reply> reserve(String sku, int quantity) {
        return ask(sku, replyTo -> new Sku.Reserve(positive(quantity), replyTo));
    }

    public CompletionStage<Sku.Reply> release(String sku, int quantity) {
        return ask(sku, replyTo -> new Sku.Release(positive(quantity), replyTo));
    }

    public CompletionStage<Sku.Reply> query(String sku) {
        return ask(sku, Sku.Query::new);
    }

    public CompletionStage<Map<String, Long>> refusals() {
        return AskPattern.ask(audit, Audit.Counts::new, timeout, system);
    }

    private CompletionStage<Sku.Reply> ask(String sku, Function<ActorRef<Sku.Reply>, Sku.Command> command) {
        if (!SKU_ID.matcher(sku).matches()) {
            throw new IllegalArgumentException("SKU ids are 1 to 64 letters, digits, '-' or '_': " + sku);
        }
        final int owner = Math.floorMod(sku.hashCode(), inventories.size());
        final CompletionStage<Sku.Reply> reply = AskPattern.ask(inventories.get(owner),
            replyTo -> new Inventory.ForSku(sku, command.apply(replyTo)), timeout, system);
        if (!api) {
            return reply;
        }
        return reply.handle((r, failure) -> {
            if (failure != null) {
                throw new CompletionException(new WorkerUnavailableException("worker '" + names.get(owner)
                    + "', which owns SKU " + sku + ", did not answer within " + timeout.toMillis() + " ms", failure));
            }
            return r;
        });
    }

    /** The worker that owns a SKU did not answer in time (down, unreachable, or overloaded). */
    public static final class WorkerUnavailableException extends RuntimeException {
        WorkerUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static int positive(int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
        return quantity;
    }
}
