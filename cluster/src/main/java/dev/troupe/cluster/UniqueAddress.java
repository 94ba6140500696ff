package dev.troupe.cluster;

import java.util.Objects;

/**
 * One incarnation of a node: its address and the random uid its actor system drew at start. A
 * node that restarts keeps its address and gets a new uid, so the old incarnation is known dead.
 *
 * @param address the node's address
 * @param uid the incarnation's uid, never 0
 */
public record UniqueAddress(Address address, long uid) implements Comparable<UniqueAddress> {

    /** Validates the parts. */
    public UniqueAddress {
        Objects.requireNonNull(address, "address");
        if (uid == 0) {
            throw new IllegalArgumentException("uid must not be 0");
        }
    }

    @Override
    public int compareTo(UniqueAddress o) {
        final int c = address.compareTo(o.address);
        return c != 0 ? c : Long.compare(uid, o.uid);
    }

    @Override
    public String toString() {
        return address + "#" + uid;
    }
}
