package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.Map;
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
 * <li>{@code api}: on the workers, reached through the {@code inventoryRouter} group router over
 * the service key {@link Inventory#SERVICE_KEY}: every worker the cluster has, each SKU on one of
 * them by consistent hashing of its id.</li>
 * </ul>
 */
@Service
public class InventoryService {

    private static final Pattern SKU_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String LOCAL_INVENTORY = "inventoryRef";
    private static final String ROUTER = "inventoryRouterRef";

    private final String name;
    private final ActorRef<Inventory.ForSku> inventory;
    private final ActorRef<Audit.Message> audit;
    private final ActorSystem system;
    private final Duration timeout;
    private final boolean api;

    /**
     * @param inventories every {@code ActorRef<Inventory.ForSku>} bean by name: the local
     *                    {@code inventory} actor's ref, or on an API node the router's
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
                this.name = ROUTER;
            }
            case "standalone", "worker" -> {
                this.api = false;
                this.name = LOCAL_INVENTORY;
            }
            default -> throw new IllegalArgumentException("inventory.role must be standalone, api or worker, was '" + role + "'");
        }
        this.inventory = inventories.get(name);
        if (inventory == null) {
            throw new IllegalStateException("inventory.role=" + role + " needs the bean " + name + ", found " + inventories.keySet());
        }
    }

    /**
     * @return the name of the inventory bean this node asks: its own inventory, or the router to the workers'
     */
    public String inventoryBean() {
        return name;
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
        final CompletionStage<Sku.Reply> reply = AskPattern.ask(inventory,
            replyTo -> new Inventory.ForSku(sku, command.apply(replyTo)), timeout, system);
        if (!api) {
            return reply;
        }
        return reply.handle((r, failure) -> {
            if (failure != null) {
                throw new CompletionException(new WorkerUnavailableException("no worker answered for SKU " + sku + " within "
                    + timeout.toMillis() + " ms (none is up and reachable, or the one that owns it is overloaded)", failure));
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
