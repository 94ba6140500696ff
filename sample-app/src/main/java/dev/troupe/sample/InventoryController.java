package dev.troupe.sample;

import dev.troupe.actor.AskTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The REST API. Handlers return the ask's {@link CompletionStage}, so no request thread
 * waits for an actor.
 *
 * <pre>
 * POST   /api/skus/{sku}/stock?quantity=N          add stock
 * POST   /api/skus/{sku}/reservations?quantity=N   reserve (409 if not enough)
 * DELETE /api/skus/{sku}/reservations?quantity=N   release a reservation
 * GET    /api/skus/{sku}                           current stock
 * GET    /api/refusals                             refused commands by kind
 * </pre>
 */
@RestController
@RequestMapping("/api")
public class InventoryController {

    private final InventoryService inventory;

    public InventoryController(InventoryService inventory) {
        this.inventory = inventory;
    }

    @PostMapping("/skus/{sku}/stock")
    public CompletionStage<ResponseEntity<Sku.Reply>> restock(@PathVariable String sku, @RequestParam int quantity) {
        return inventory.restock(sku, quantity).thenApply(InventoryController::toResponse);
    }

    @PostMapping("/skus/{sku}/reservations")
    public CompletionStage<ResponseEntity<Sku.Reply>> reserve(@PathVariable String sku, @RequestParam int quantity) {
        return inventory.reserve(sku, quantity).thenApply(InventoryController::toResponse);
    }

    @DeleteMapping("/skus/{sku}/reservations")
    public CompletionStage<ResponseEntity<Sku.Reply>> release(@PathVariable String sku, @RequestParam int quantity) {
        return inventory.release(sku, quantity).thenApply(InventoryController::toResponse);
    }

    @GetMapping("/skus/{sku}")
    public CompletionStage<ResponseEntity<Sku.Reply>> query(@PathVariable String sku) {
        return inventory.query(sku).thenApply(InventoryController::toResponse);
    }

    @GetMapping("/refusals")
    public CompletionStage<Map<String, Long>> refusals() {
        return inventory.refusals();
    }

    private static ResponseEntity<Sku.Reply> toResponse(Sku.Reply reply) {
        return reply instanceof Sku.Rejected
            ? ResponseEntity.status(HttpStatus.CONFLICT).body(reply)
            : ResponseEntity.ok(reply);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
    }

    @ExceptionHandler({AskTimeoutException.class, CompletionException.class, InventoryService.SkuUnavailableException.class})
    ResponseEntity<Map<String, String>> unavailable(Exception e) {
        final Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("error", String.valueOf(cause.getMessage())));
    }
}
