package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.metrics.ActorMetrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An actor seen by metrics readers: a separate object from the actor's cell, so a view handed
 * to a scrape cannot be cast into the actor's ref (or anything else of the runtime's).
 *
 * <p>Two uses. An actor spawned with {@code Props.withMetrics()} has one view for its whole life,
 * created at spawn, which also holds its counters (one writer at a time, the thread running the
 * actor; read with acquire loads), so a meter registry can keep it as the meters' source. A walk of
 * every actor ({@code forEachActor}) uses one view per walk, pointed at each actor in turn: a
 * scrape allocates nothing per actor, and the view is valid only during the visitor's call, as the
 * interface says.
 */
final class ActorMetricsView implements ActorMetrics {

    private static final VarHandle PROCESSED;
    private static final VarHandle PROC_NANOS;
    private static final VarHandle PROC_SAMPLES;

    static {
        try {
            final MethodHandles.Lookup l = MethodHandles.lookup();
            PROCESSED = l.findVarHandle(ActorMetricsView.class, "processed", long.class);
            PROC_NANOS = l.findVarHandle(ActorMetricsView.class, "procNanos", long.class);
            PROC_SAMPLES = l.findVarHandle(ActorMetricsView.class, "procSamples", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The actor; fixed for a tracked actor's own view, moved along by a walk's view. */
    private ActorCell<?> cell;
    private long processed;
    private long procNanos;
    private long procSamples;

    /** @param cell the actor, or null for a walk's view not yet pointed at one */
    ActorMetricsView(ActorCell<?> cell) {
        this.cell = cell;
    }

    /** Points a walk's view at the next actor; the walk's thread only. */
    void pointAt(ActorCell<?> next) {
        cell = next;
    }

    // ---- written by the thread running the actor ----

    void recordProcessed(int messages) {
        PROCESSED.setRelease(this, processed + messages);
    }

    void recordSample(int messages, long nanos) {
        PROC_NANOS.setRelease(this, procNanos + nanos);
        PROC_SAMPLES.setRelease(this, procSamples + messages);
    }

    // ---- ActorMetrics ----

    @Override
    public ActorPath path() {
        return cell.path();
    }

    @Override
    public String dispatcherName() {
        return cell.dispatcher.name();
    }

    @Override
    public String behaviorName() {
        return cell.behaviorName();
    }

    @Override
    public int mailboxSize() {
        return cell.size();
    }

    @Override
    public int mailboxCapacity() {
        return cell.capacity();
    }

    @Override
    public long messagesProcessed() {
        final ActorMetricsView own = cell.view;
        return own == null ? 0 : (long) PROCESSED.getAcquire(own);
    }

    @Override
    public long processingNanos() {
        final ActorMetricsView own = cell.view;
        return own == null ? 0 : (long) PROC_NANOS.getAcquire(own);
    }

    @Override
    public long processingSamples() {
        final ActorMetricsView own = cell.view;
        return own == null ? 0 : (long) PROC_SAMPLES.getAcquire(own);
    }

    @Override
    public int childCount() {
        final Children c = cell.childrenOrNull();
        return c == null ? 0 : c.size();
    }

    @Override
    public boolean tracked() {
        return cell.view != null;
    }

    @Override
    public boolean alive() {
        return !cell.isDead();
    }

    @Override
    public String toString() {
        return "ActorMetrics(" + cell.path() + ")";
    }
}
