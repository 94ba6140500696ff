package dev.troupe.remote;

/**
 * Fails an ask whose request went to a node this node has declared lost (its failure detector
 * tripped, it shut down, it restarted, or it was quarantined), at once instead of at the ask's
 * timeout. Also fails an ask sent while that node is lost: the request is not sent.
 */
public final class PeerUnreachableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String address;

    /**
     * @param address the node, {@code system@host:port}
     * @param why why it is unreachable
     */
    public PeerUnreachableException(String address, String why) {
        super("remote node " + address + " is unreachable (" + why + "); the ask failed without waiting for its timeout");
        this.address = address;
    }

    /** @return the node, {@code system@host:port} */
    public String address() {
        return address;
    }
}
