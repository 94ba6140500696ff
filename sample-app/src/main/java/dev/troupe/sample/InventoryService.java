package dev.troupe.sample;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.AskPattern;
import dev.troupe.spring.cluster.sharding.EntityRefFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Asks the SKUs; every call is one message to one SKU entity, wherever in the cluster it runs,
 * and one reply.
 */
@Service
public class InventoryService {

    private static final Pattern SKU_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final EntityRefFactory<Sku.Command> skus;
    private final ActorRef<Audit.Message> audit;
    private final ActorSystem system;
    private final Duration timeout;

    public InventoryService(EntityRefFactory<Sku.Command> skus, ActorRef<Audit.Message> audit,
                            ActorSystem system, @Value("${inventory.ask-timeout:3s}") Duration timeout) {
        this.skus = skus;
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
        return skus.entityRefFor(sku).ask(Sku.Reply.class, command, timeout).handle((r, failure) -> {
            if (failure != null) {
                throw new CompletionException(new SkuUnavailableException("SKU " + sku + " did not answer within "
                    + timeout.toMillis() + " ms (its owner is unreachable, its shard is moving, or it is overloaded)", failure));
            }
            return r;
        });
    }

    /** The SKU did not answer in time: the request may or may not have been processed. */
    public static final class SkuUnavailableException extends RuntimeException {
        SkuUnavailableException(String message, Throwable cause) {
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
