package dev.troupe.sample;

import dev.troupe.actor.AskTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
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
 *
 * A 200 to a change means its event is stored. A 503 is an RFC 9457 problem detail: the database did
 * not take the change (title "Stock change not stored", {@code reason} unavailable, timeout, ...),
 * or the SKU did not answer in time; either way the change may or may not have been applied, so
 * query the SKU before retrying.
 */
@RestController
@RequestMapping("/api")
public class InventoryController {

    private final InventoryService inventory;

    public InventoryController(InventoryService inventory) {
        this.inventory = inventory;
    }

    @PostMapping("/skus/{sku}/stock")
    public CompletionStage<ResponseEntity<Object>> restock(@PathVariable String sku, @RequestParam int quantity) {
        return inventory.restock(sku, quantity).thenApply(InventoryController::toResponse);
    }

    @PostMapping("/skus/{sku}/reservations")
    public CompletionStage<ResponseEntity<Object>> reserve(@PathVariable String sku, @RequestParam int quantity) {
        return inventory.reserve(sku, quantity).thenApply(InventoryController::toResponse);
    }

    @DeleteMapping("/skus/{sku}/reservations")
    public CompletionStage<ResponseEntity<Object>> release(@PathVariable String sku, @RequestParam int quantity) {
        return inventory.release(sku, quantity).thenApply(InventoryController::toResponse);
    }

    @GetMapping("/skus/{sku}")
    public CompletionStage<ResponseEntity<Object>> query(@PathVariable String sku) {
        return inventory.query(sku).thenApply(InventoryController::toResponse);
    }

    @GetMapping("/refusals")
    public CompletionStage<Map<String, Long>> refusals() {
        return inventory.refusals();
    }

    private static ResponseEntity<Object> toResponse(Sku.Reply reply) {
        if (reply instanceof Sku.Rejected) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(reply);
        }
        if (reply instanceof Sku.Unavailable u) {
            final ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "The change to SKU " + u.sku()
                + " could not be stored (" + u.reason() + "): " + u.detail()
                + ". It may or may not have been applied; query the SKU before retrying.");
            problem.setTitle("Stock change not stored");
            problem.setProperty("sku", u.sku());
            problem.setProperty("reason", u.reason());
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem);
        }
        return ResponseEntity.ok(reply);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
    }

    @ExceptionHandler({AskTimeoutException.class, CompletionException.class, InventoryService.SkuUnavailableException.class})
    ResponseEntity<ProblemDetail> unavailable(Exception e) {
        final Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        final ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, String.valueOf(cause.getMessage())
            + "; the request may or may not have been processed.");
        problem.setTitle("SKU did not answer in time");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem);
    }
}
