package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Asks the inventory's actors; every call is one message to one SKU actor and one reply. */
@Service
public class InventoryService {

    private static final Pattern SKU_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final ActorRef<Inventory.ForSku> inventory;
    private final ActorRef<Audit.Message> audit;
    private final ActorSystem system;
    private final Duration timeout;

    public InventoryService(ActorRef<Inventory.ForSku> inventory, ActorRef<Audit.Message> audit, ActorSystem system,
                            @Value("${inventory.ask-timeout:3s}") Duration timeout) {
        this.inventory = inventory;
        this.audit = audit;
        this.system = system;
        this.timeout = timeout;
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
        return AskPattern.ask(inventory, replyTo -> new Inventory.ForSku(sku, command.apply(replyTo)), timeout, system);
    }

    private static int positive(int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
        return quantity;
    }
}
