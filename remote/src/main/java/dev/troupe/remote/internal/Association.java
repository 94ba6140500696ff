package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;

import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;

/**
 * Everything this node keeps about one remote node (one {@code system@host:port}), in rooms
 * along its concerns and threads, the way an actor's cell is split:
 *
 * <table>
 *   <caption>The rooms of an association</caption>
 *   <tr><th>room</th><th>holds</th><th>threads</th></tr>
 *   <tr><td>{@link PeerIncarnation}</td><td>who the peer is and what it may claim: its UID, lost or
 *       not, quarantined or not, the association's state, the dial-back that tells a restart from an
 *       impostor, the asks waiting for it</td><td>volatile state read by producers on every tell;
 *       changed on {@link #loop}</td></tr>
 *   <tr><td>{@link PeerConnection}</td><td>the outbound connection: connect, reconnect with backoff,
 *       the heartbeat timer and the failure detector</td><td>{@link #loop}</td></tr>
 *   <tr><td>{@link OutboundRing}</td><td>the producer side: the ring telling threads serialize into,
 *       the compression ids of this direction</td><td>any (many producers)</td></tr>
 *   <tr><td>{@link OutboundDrain}</td><td>the consumer side: draining the ring into the connection
 *       in batches, re-advertising ids on a new connection</td><td>{@link #loop} (one consumer)</td></tr>
 *   <tr><td>{@link SystemMessages}</td><td>reliable, sequenced delivery of system messages both ways</td>
 *       <td>outbound {@link #loop}; inbound synchronized</td></tr>
 *   <tr><td>{@link RemoteDeathWatch}</td><td>death watch across the link, both ways</td><td>any (one lock)</td></tr>
 *   <tr><td>{@link InboundConnections}</td><td>the peer's connections to this node, by incarnation</td><td>any</td></tr>
 *   <tr><td>{@link PeerMetricsView}</td><td>what metrics readers see of the association</td><td>any (reads)</td></tr>
 * </table>
 *
 * <p>This class keeps what belongs to the association as a whole: its address and loop, whether it
 * is trusted (its address may be a metric tag), and its lifetime. The rooms reach one another
 * through its final fields, as an actor's rooms reach one another through its cell.
 *
 * <h2>Lifetime</h2>
 * An association exists for a node this node sends to, or one that completed a handshake
 * with it, up to {@code maxAssociations}. One with no connection, traffic, pending system
 * messages or watches for {@code removeIdleAssociationAfter} (or whose node is lost that long)
 * is removed: refs to that node find a new association on their next tell. Its outbound buffer
 * is freed once nothing refers to it.
 */
final class Association {

    /** The association's log: every room of an association writes here. */
    static final System.Logger LOG = System.getLogger(Association.class.getName());

    final TransportCore core;
    final String address;
    final ActorPath root;
    final EventLoop loop;
    final PeerIncarnation incarnation;
    final PeerConnection connection;
    final InboundConnections inbound;
    final OutboundDrain drain;
    final OutboundRing ring;
    final SystemMessages system;
    final RemoteDeathWatch deathWatch;
    /** What the peer makes this node hold, in bytes, against its budget and the node's. */
    final PeerMemory memory;
    final PeerMetricsView metrics;
    private final long graceNanos;

    private volatile boolean removed;
    /** Configured (a lookup) or authenticated (a completed handshake): its address may be a metric tag. */
    private volatile boolean trusted;
    /** The idle clock (loop; a benign race with inbound threads that note traffic: approximate). */
    private long lastTrafficNanos = System.nanoTime();
    private long trafficMark;

    Association(TransportCore core, ActorPath root, EventLoop loop) {
        this.core = core;
        this.root = root;
        this.address = NodeAddresses.key(root);
        this.loop = loop;
        this.graceNanos = core.settings.removeIdleAssociationAfter().toNanos();
        this.incarnation = new PeerIncarnation(this);
        this.connection = new PeerConnection(this, core.outboundBootstrap(this, false), core.outboundBootstrap(this, true));
        this.inbound = new InboundConnections();
        this.drain = new OutboundDrain(this);
        this.ring = new OutboundRing(this, drain);
        drain.attach(ring);
        this.memory = new PeerMemory(address, core.memory, ring, core.settings.maxPeerMemory());
        this.system = new SystemMessages(core.settings.maxUnackedSystemMessages(), core.settings.systemMessageResendInterval().toNanos(),
            memory);
        this.deathWatch = new RemoteDeathWatch(this, core.settings.maxInboundWatches());
        this.metrics = new PeerMetricsView(this);
    }

    /**
     * Runs a task on the loop; after the transport shut down the loop refuses tasks, and the
     * caller (often an actor stopping) must not see an exception for that.
     *
     * @return whether the loop took the task
     */
    boolean execute(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Traffic or a new connection: the association is not idle as of {@code now}. */
    void touched(long now) {
        lastTrafficNanos = now;
    }

    boolean isRemoved() {
        return removed;
    }

    boolean isTrusted() {
        return trusted;
    }

    void trust() {
        trusted = true;
    }

    /** Trusts a new association before it is published (creation only). */
    Association trusted() {
        trusted = true;
        return this;
    }

    // =====================================================================================
    // Removal when idle (loop)
    // =====================================================================================

    /**
     * Removes this association to make room for a new one (the registry is at its limit), if it
     * is stateless: no connection or attempt, nothing queued, no system messages, no watches, and
     * nothing sent or received lately (any thread; the registry chose it as the idlest).
     *
     * @return whether it was removed
     */
    boolean evict() {
        if (!isStateless()) {
            return false;
        }
        removed = true;
        VarHandle.fullFence(); // as in remove(): a producer that missed the flag wrote before this check, or revives it
        if (!holdsNothing() || drain.isPending()) {
            removed = false;
            return false;
        }
        LOG.log(System.Logger.Level.DEBUG, "evicting the stateless association with " + address + " for a new one");
        execute(() -> {
            connection.stop();
            drain.releaseSpare();
        });
        memory.release(memory.charged());
        core.associations.removed(this);
        return true;
    }

    /** @return whether nothing at all is held for the peer but its address (any thread; approximate) */
    boolean isStateless() {
        return !removed && holdsNothing();
    }

    private boolean holdsNothing() {
        return !connection.isBusy() && inbound.isEmpty() && ring.size() == 0 && system.unackedCount() == 0
            && deathWatch.isEmpty() && !incarnation.isClosed();
    }

    /** @return when traffic or a connection last touched this association ({@code System.nanoTime()}, approximate) */
    long lastTouched() {
        return lastTrafficNanos;
    }

    /**
     * The registry's sweep, for associations that never started (a node that only sends to
     * this one): they have no tick of their own to notice they are idle (loop).
     */
    void sweep() {
        if (!connection.isTicking() && !connection.isClosing()) {
            checkIdle(System.nanoTime());
        }
    }

    /** Each tick, and each sweep of an association that never started: removes it once idle long enough. */
    void checkIdle(long now) {
        final long traffic = metrics.messagesSent() + metrics.messagesReceived();
        if (traffic != trafficMark) {
            trafficMark = traffic;
            lastTrafficNanos = now;
        }
        if (removable(now)) {
            remove();
        }
    }

    private boolean removable(long now) {
        if (connection.isClosing() || !inbound.isEmpty() || ring.size() > 0 || system.unackedCount() > 0 || !deathWatch.isEmpty()) {
            return false;
        }
        return incarnation.isUnreachable() ? now - incarnation.lostAtNanos() >= graceNanos : now - lastTrafficNanos >= graceNanos;
    }

    private void remove() {
        removed = true;
        VarHandle.fullFence(); // a producer that missed the flag wrote its record before this check, or will revive us
        if (ring.size() > 0 || drain.isPending() || !inbound.isEmpty()) {
            removed = false;
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "removing the idle association with " + address);
        connection.stop();
        drain.releaseSpare();
        memory.release(memory.charged()); // nothing of it is held any more
        core.associations.removed(this);
    }

    /** A record arrived after the removal: come back if the address is still free (loop). */
    boolean revive() {
        if (!core.associations.revive(this)) {
            return false;
        }
        removed = false;
        lastTrafficNanos = System.nanoTime();
        connection.start();
        return true;
    }

    // =====================================================================================
    // Shutdown (loop)
    // =====================================================================================

    /**
     * Sends CLOSE (if connected) and closes; no reconnects after this.
     *
     * @return completes when the connection closed (null if there was none); CLOSE goes after
     *         every byte already written, so this also bounds the flush
     */
    ChannelFuture close() {
        incarnation.closed();
        drain.release();
        return connection.close();
    }

    @Override
    public String toString() {
        return "Association(" + address + ", " + incarnation.state() + ")";
    }
}
