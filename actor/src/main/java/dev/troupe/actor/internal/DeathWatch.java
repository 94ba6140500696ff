package dev.troupe.actor.internal;

import dev.troupe.actor.spi.DeathWatchNotification;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.Unwatch;
import dev.troupe.actor.spi.Watch;

import java.util.HashMap;
import java.util.HashSet;

/**
 * One actor's death watch, both ways: who watches it (told with a {@link DeathWatchNotification}
 * when it stops) and whom it watches (with the message to receive instead of {@code Terminated},
 * if any). Actor thread only; created when the actor first watches or is watched, and its tables
 * on first use.
 */
final class DeathWatch {

    /** Marks a watch that delivers the {@code Terminated} signal rather than a custom message. */
    static final Object SIGNAL = new Object();

    private final ActorCell<?> self;
    private HashSet<InternalActorRef<?>> watchers;
    private HashMap<InternalActorRef<?>, Object> watching;
    /** Why the actor is stopping, if it failed (told to its watchers and its parent); null for a normal stop. */
    Throwable failureCause;

    DeathWatch(ActorCell<?> self) {
        this.self = self;
    }

    // ---- this actor watching others (from its context) ----

    /**
     * @param other the actor to watch
     * @param message the message to receive when it stops, or {@link #SIGNAL}
     */
    void watch(InternalActorRef<?> other, Object message) {
        if (other == self) {
            return;
        }
        if (watching == null) {
            watching = new HashMap<>();
        }
        if (watching.put(other, message) == null && !isChildYetToTerminate(other)) {
            other.sendSystem(new Watch(other, self));
        }
    }

    /** @param other an actor this one watches; no notification arrives for it afterwards */
    void unwatch(InternalActorRef<?> other) {
        if (watching != null && watching.remove(other) != null && !isChildYetToTerminate(other)) {
            other.sendSystem(new Unwatch(other, self));
        }
    }

    /**
     * A child still in this actor's child table will send its {@code ChildTerminated} when it
     * stops, which delivers the watch's message ({@link ActorLifecycle#childTerminated}), so
     * watching it needs no {@code Watch}: the child then keeps no watcher table for its parent
     * (about 200 bytes per watched child; a shard region watches every entity it starts). A child
     * already removed from the table is watched as any actor (its answer comes from the dead cell).
     */
    private boolean isChildYetToTerminate(InternalActorRef<?> other) {
        if (!(other instanceof ActorCell) || ((ActorCell<?>) other).parent != self) {
            return false;
        }
        final ActorCell<?> child = (ActorCell<?>) other;
        return self.children().get(child.name()) == child;
    }

    /**
     * A watched actor has stopped.
     *
     * @param actor the actor
     * @return the custom message to deliver, {@link #SIGNAL} for a {@code Terminated} signal, or
     *         null when this actor does not (or no longer) watch it
     */
    Object watchedTerminated(InternalActorRef<?> actor) {
        return watching == null ? null : watching.remove(actor);
    }

    // ---- others watching this actor (system messages) ----

    /** @param watch a watch whose watchee may be this actor */
    void onWatch(Watch watch) {
        if (watch.watchee() == self) {
            if (watchers == null) {
                watchers = new HashSet<>();
            }
            watchers.add(watch.watcher());
        }
    }

    /** @param unwatch an unwatch whose watchee may be this actor */
    void onUnwatch(Unwatch unwatch) {
        if (unwatch.watchee() == self && watchers != null) {
            watchers.remove(unwatch.watcher());
        }
    }

    /**
     * This actor has stopped: tells its watchers (but the parent, which hears through
     * {@code ChildTerminated}) and withdraws its own watches.
     *
     * @param cause why it stopped, or null
     */
    void terminated(Throwable cause) {
        if (watchers != null) {
            for (InternalActorRef<?> w : watchers) {
                if (w != self.parent) {
                    w.sendSystem(new DeathWatchNotification(self, cause));
                }
            }
            watchers = null;
        }
        if (watching != null) {
            for (InternalActorRef<?> w : watching.keySet()) {
                w.sendSystem(new Unwatch(w, self));
            }
            watching = null;
        }
    }

    /**
     * Answers a watch that arrives after an actor stopped (which needs no death watch of its own).
     *
     * @param self the stopped actor
     * @param watch the watch
     */
    static void answerWhenDead(ActorCell<?> self, Watch watch) {
        if (watch.watchee() == self) {
            watch.watcher().sendSystem(new DeathWatchNotification(self, null));
        }
    }
}
