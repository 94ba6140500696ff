package dev.troupe.spring.web;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.AskTimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * Turns a failed ask into an RFC 9457 problem detail: {@code 504 Gateway Timeout} when the
 * actor did not answer in time, {@code 503 Service Unavailable} when the actor lives on a node
 * the remote transport cannot reach. The body names the actor's path and the timeout, so a
 * client (and whoever reads its logs) sees which actor failed.
 */
public class TroupeProblemDetails {

    /** The {@code type} of a problem: an actor that did not answer in time. */
    public static final String ASK_TIMEOUT_TITLE = "Actor did not answer in time";

    /** The {@code type} of a problem: an actor on a node this one cannot reach. */
    public static final String PEER_UNREACHABLE_TITLE = "Actor's node is unreachable";

    private final PeerStates peers;

    /** @param peers the remote transport's view of the peers, or null without a transport */
    public TroupeProblemDetails(PeerStates peers) {
        this.peers = peers;
    }

    /**
     * @param e the failed ask
     * @return 503 when the asked actor's node is not reachable, else 504; with properties
     *         {@code actor}, {@code timeoutMillis} and, for a remote actor, {@code node} and {@code nodeState}
     */
    public ProblemDetail forAskTimeout(AskTimeoutException e) {
        final ActorPath target = e.target();
        final String actor = target == null ? null : target.toString();
        final String within = e.timeout() == null ? "" : " within " + e.timeout().toMillis() + " ms";
        final String node = target == null || target.host() == null ? null : target.system() + "@" + target.host() + ":" + target.port();
        final String state = node == null || peers == null ? null : peers.state(node);
        final ProblemDetail problem;
        if (state != null && !"active".equals(state)) {
            problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The actor " + actor + " did not answer" + within + ": its node " + node + " is " + state + ".");
            problem.setTitle(PEER_UNREACHABLE_TITLE);
        } else {
            problem = ProblemDetail.forStatusAndDetail(HttpStatus.GATEWAY_TIMEOUT,
                actor == null ? e.getMessage() : "The actor " + actor + " did not answer" + within + ".");
            problem.setTitle(ASK_TIMEOUT_TITLE);
        }
        if (actor != null) {
            problem.setProperty("actor", actor);
        }
        if (e.timeout() != null) {
            problem.setProperty("timeoutMillis", e.timeout().toMillis());
        }
        if (node != null) {
            problem.setProperty("node", node);
            if (state != null) {
                problem.setProperty("nodeState", state);
            }
        }
        return problem;
    }
}
