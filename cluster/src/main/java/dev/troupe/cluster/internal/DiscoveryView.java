package dev.troupe.cluster.internal;

import dev.troupe.cluster.Address;
import dev.troupe.cluster.UniqueAddress;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * What discovery says, as {@link Membership} uses it: the latest result and how many rounds
 * completed, the other names discovery gives a node (the candidate a handshake was dialed
 * through, when it is not the node's canonical address) and this node's own, and the join gate:
 * the candidates of the first round not heard from yet, with the join deadline.
 *
 * <p>Owned by its {@code Membership}: single-threaded.
 */
final class DiscoveryView {

    /** The latest discovery result; null before the first one. */
    private Set<Address> discovered;
    private long rounds;
    /** Candidate addresses (as discovery names them) that led to a peer. */
    private final Map<Address, UniqueAddress> aliases = new HashMap<>();
    private final Set<Address> selfAliases = new HashSet<>();
    /** Candidates of the first discovery round not heard from yet; null before it. */
    private Set<Address> pendingInitial;
    private long joinDeadlineNanos;

    /**
     * A round completed.
     *
     * @param found the addresses it found
     * @return whether it was the first
     */
    boolean round(Set<Address> found) {
        final boolean first = discovered == null;
        rounds++;
        discovered = found;
        return first;
    }

    /** @return the discovery rounds completed so far */
    long rounds() {
        return rounds;
    }

    /**
     * Closes the join gate until every candidate of the first round answered or failed, or the deadline passed.
     *
     * @param unknown the first round's candidates this node has not met
     * @param deadline the clock at which this node goes up anyway
     */
    void startJoin(Set<Address> unknown, long deadline) {
        pendingInitial = unknown;
        joinDeadlineNanos = deadline;
    }

    /** @return whether every candidate of the first round was heard from (false before the first round) */
    boolean joinComplete() {
        return pendingInitial != null && pendingInitial.isEmpty();
    }

    /**
     * @param now the clock
     * @return whether the join deadline has passed (after the first round): the gate is open now
     */
    boolean joinDeadlinePassed(long now) {
        if (discovered != null && now - joinDeadlineNanos >= 0) {
            pendingInitial.clear();
            return true;
        }
        return false;
    }

    /** @return whether the candidate was one the join gate waited for */
    boolean connectFailed(Address candidate) {
        return pendingInitial != null && pendingInitial.remove(candidate);
    }

    /** @param peer answered with its member info: the join gate stops waiting for it, under any of its names */
    void heardFrom(UniqueAddress peer) {
        if (pendingInitial == null || pendingInitial.isEmpty()) {
            return;
        }
        pendingInitial.remove(peer.address());
        for (Map.Entry<Address, UniqueAddress> e : aliases.entrySet()) {
            if (e.getValue().equals(peer)) {
                pendingInitial.remove(e.getKey());
            }
        }
    }

    /** @param dialed a name discovery gives this node itself (a handshake through it reached this node) */
    void selfAlias(Address dialed) {
        selfAliases.add(dialed);
        if (pendingInitial != null) {
            pendingInitial.remove(dialed);
        }
    }

    /**
     * @param self this node's canonical address
     * @return whether {@code a} names this node
     */
    boolean isSelf(Address a, Address self) {
        return a.equals(self) || selfAliases.contains(a);
    }

    /** @return the peer a candidate led to, if it did */
    UniqueAddress aliasOf(Address candidate) {
        return aliases.get(candidate);
    }

    /** @return whether the candidate led to a peer (possibly one removed since) */
    boolean isAlias(Address candidate) {
        return aliases.containsKey(candidate);
    }

    void alias(Address dialed, UniqueAddress peer) {
        aliases.put(dialed, peer);
    }

    /** @param peer a removed peer: its other names are forgotten */
    void forget(UniqueAddress peer) {
        final Iterator<Map.Entry<Address, UniqueAddress>> it = aliases.entrySet().iterator();
        while (it.hasNext()) {
            if (it.next().getValue().equals(peer)) {
                it.remove();
            }
        }
    }

    void forgetAll() {
        aliases.clear();
    }

    /**
     * Not listed by a discovery round that began after this node met the peer. (Lookups run one at
     * a time, so the round completed second after the meeting began after it.) A peer met through
     * its own handshake before this node's discovery lists it is not "gone" from discovery.
     */
    boolean goneFrom(Peer p) {
        return rounds >= p.metInRound + 2 && !lists(p.address);
    }

    /** @return whether the latest round listed the peer, under its address or a name it was dialed through (true before the first round) */
    boolean lists(UniqueAddress peer) {
        if (discovered == null) {
            return true;
        }
        if (discovered.contains(peer.address())) {
            return true;
        }
        for (Map.Entry<Address, UniqueAddress> e : aliases.entrySet()) {
            if (e.getValue().equals(peer) && discovered.contains(e.getKey())) {
                return true;
            }
        }
        return false;
    }
}
