package dev.troupe.spring.web;

import dev.troupe.actor.AskTimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a controller's failed ask with a problem detail (see {@link TroupeProblemDetails}),
 * in Spring MVC and WebFlux alike, whether the controller returned the ask's
 * {@code CompletionStage} or waited for it. Ordered last: a handler of the application's own wins.
 * The failure is logged at DEBUG, without a stack trace: it is the answer, not a server error.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class TroupeExceptionHandler {

    private static final Log log = LogFactory.getLog(TroupeExceptionHandler.class);

    private final TroupeProblemDetails problems;

    /** @param problems builds the bodies */
    public TroupeExceptionHandler(TroupeProblemDetails problems) {
        this.problems = problems;
    }

    /**
     * @param e the failed ask
     * @return 503 or 504 with the problem detail
     */
    @ExceptionHandler(AskTimeoutException.class)
    public ResponseEntity<ProblemDetail> askTimeout(AskTimeoutException e) {
        final ProblemDetail problem = problems.forAskTimeout(e);
        if (log.isDebugEnabled()) {
            log.debug(problem.getStatus() + " " + problem.getDetail());
        }
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }
}
