package dev.troupe.cluster.discovery;

import dev.troupe.cluster.discovery.HostPort;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where candidate members come from: infrastructure the user already runs (a static list, DNS
 * records of a headless or compose service, a Spring Cloud {@code DiscoveryClient}). The cluster
 * calls {@link #lookup()} at start and then every discovery interval, one lookup at a time, and
 * connects to every candidate it does not know yet. Discovery only proposes: a candidate becomes a
 * member after a handshake, and a member leaves the view only by the rules of the membership (being
 * gone from discovery alone never removes a reachable member).
 *
 * <p>Implementations must not block the caller for long: do I/O asynchronously, or complete the
 * stage on another thread. A failed lookup is logged and the previous result is kept.
 */
public interface MemberDiscovery extends AutoCloseable {

    /**
     * @return completes with the candidates' transport endpoints ({@code host:port}), in any order;
     *         this node's own endpoint may be among them
     */
    CompletionStage<List<HostPort>> lookup();

    /** Releases what the provider holds (sockets, threads). Idempotent; nothing by default. */
    @Override
    default void close() {
    }
}
