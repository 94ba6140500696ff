package dev.troupe.spring.web;

/**
 * What the remote transport knows of a peer, for {@link TroupeProblemDetails}: whether an ask to
 * an actor on that node failed because the node is unreachable rather than slow.
 */
@FunctionalInterface
public interface PeerStates {

    /**
     * @param address a node's address, {@code system@host:port}
     * @return its association state ({@code connecting}, {@code active}, {@code unreachable},
     *         {@code closed}), or null when this node has no association with it
     */
    String state(String address);
}
