package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.InvalidActorNameException;
import dev.troupe.actor.MailboxSettings;
import dev.troupe.actor.Props;
import dev.troupe.actor.spi.InternalActorRef;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An actor's children by name, and the path lookup that walks them. Created with the first
 * child (an actor without children has none). Thread-safe: guardians spawn from any thread
 * ({@code ActorSystem.spawn}) and lookups come from anywhere, so the table is a concurrent map
 * and a name is reserved atomically. A child is removed when its {@code ChildTerminated}
 * reaches the parent, on the parent's thread.
 */
final class Children {

    private static final AtomicLong ANONYMOUS = new AtomicLong();

    private final ActorCell<?> owner;
    private final ConcurrentHashMap<String, ActorCell<?>> byName = new ConcurrentHashMap<>(4);

    Children(ActorCell<?> owner) {
        this.owner = owner;
    }

    /**
     * Creates a guardian child ({@code /user}, {@code /system}).
     *
     * @param name the guardian's name
     * @return the guardian, not yet started
     */
    ActorCell<Object> spawnGuardian(String name) {
        final ActorCell<Object> g = new ActorCell<>(owner.runtime, owner, owner.path().child(name), owner.dispatcher,
            Mailbox.unbounded(16), false, ActorCell.guardianBehavior());
        byName.put(name, g);
        return g;
    }

    /**
     * Spawns a child. Thread-safe: the name is reserved atomically.
     *
     * @param behavior the child's behavior
     * @param name the name, or null for a generated one
     * @param props the props
     * @param <U> the child's message type
     * @return the child
     */
    <U> ActorCell<U> spawn(Behavior<U> behavior, String name, Props props) {
        Objects.requireNonNull(behavior, "behavior");
        Objects.requireNonNull(props, "props");
        final String childName;
        if (name == null) {
            childName = "$" + Long.toString(ANONYMOUS.incrementAndGet(), 36);
        } else if (name.startsWith("$")) {
            throw new InvalidActorNameException("actor name '" + name + "' must not start with '$': reserved for generated names");
        } else {
            childName = name;
        }
        if (owner.isDead()) {
            throw new IllegalStateException("cannot spawn '" + childName + "': " + owner.path() + " has stopped");
        }
        long uid;
        do {
            uid = ThreadLocalRandom.current().nextLong();
        } while (uid == 0);
        // Building the child's path validates the name (InvalidActorNameException): one path, no throwaway.
        final ActorPath childPath = owner.path().child(childName, uid);
        final SystemRuntime runtime = owner.runtime;
        final Dispatcher d = runtime.dispatchers.select(props);
        final ActorCell<U> child = new ActorCell<>(runtime, owner, childPath, d, createMailbox(runtime, props), props.metrics(), behavior);
        if (byName.putIfAbsent(childName, child) != null) {
            runtime.dispatchers.release(d);
            throw new InvalidActorNameException("actor name '" + childName + "' is not unique: " + owner.path()
                + " already has a child of that name");
        }
        runtime.metrics.spawned.incrementAndGet();
        if (child.view != null) {
            runtime.metrics.tracked.add(child.view);
        }
        child.start();
        // The parent may have begun stopping after our name check: it stops the children it sees, and
        // this read (after the map write) sees its state, so no child outlives it.
        if (owner.state() >= ActorCell.TERMINATING) {
            child.sendSystem(CellMessage.Terminate.INSTANCE);
        }
        return child;
    }

    private static Mailbox createMailbox(SystemRuntime runtime, Props props) {
        final MailboxSettings defaults = runtime.settings().defaultMailbox();
        final int capacity = props.mailboxCapacity() < 0 ? defaults.capacity() : props.mailboxCapacity();
        return capacity > 0 ? Mailbox.bounded(capacity, defaults.initialCapacity()) : Mailbox.unbounded(defaults.initialCapacity());
    }

    /**
     * Stops a child from any thread.
     *
     * @param ref the child
     * @throws IllegalArgumentException if it is not a child of the owner
     */
    void stop(ActorRef<?> ref) {
        final ActorCell<?> child = ref instanceof ActorCell ? byName.get(ref.path().name()) : null;
        if (child == null || child != ref) {
            throw new IllegalArgumentException("only children of " + owner.path() + " can be stopped this way, not " + ref.path()
                + " (an actor stops itself by returning Behaviors.stopped())");
        }
        child.sendSystem(CellMessage.Terminate.INSTANCE);
    }

    /** Asks every child to stop (the owner is stopping or restarting). */
    void stopAll() {
        for (ActorCell<?> child : byName.values()) {
            child.sendSystem(CellMessage.Terminate.INSTANCE);
        }
    }

    /** @param child a child that has fully stopped */
    void remove(ActorCell<?> child) {
        byName.remove(child.path().name(), child);
    }

    boolean isEmpty() {
        return byName.isEmpty();
    }

    int size() {
        return byName.size();
    }

    /** @return a snapshot of the live children */
    @SuppressWarnings("unchecked")
    Collection<ActorRef<Void>> live() {
        final List<ActorRef<Void>> out = new ArrayList<>(byName.size());
        for (ActorCell<?> c : byName.values()) {
            if (!c.isDead()) {
                out.add((ActorRef<Void>) (ActorRef<?>) c);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * @param name a child's name
     * @return the live child, or null
     */
    ActorCell<?> live(String name) {
        final ActorCell<?> c = byName.get(name);
        return c == null || c.isDead() ? null : c;
    }

    /** Pushes the live children, for a walk of the tree (metrics). */
    void pushLive(ArrayDeque<ActorCell<?>> stack) {
        for (ActorCell<?> c : byName.values()) {
            if (!c.isDead()) {
                stack.push(c);
            }
        }
    }

    /**
     * Resolves a live actor below the owner (the root), by its elements.
     *
     * @param target the path; its address is ignored, its uid checked unless 0
     * @param <U> the message type
     * @return the actor, or null
     */
    @SuppressWarnings("unchecked")
    <U> InternalActorRef<U> resolve(ActorPath target) {
        final int depth = target.depth();
        if (depth == 0) {
            return null;
        }
        final String[] names = new String[depth];
        ActorPath p = target;
        for (int i = depth - 1; i >= 0; i--) {
            names[i] = p.name();
            p = p.parent();
        }
        ActorCell<?> cell = owner;
        for (int i = 0; i < depth && cell != null; i++) {
            final Children c = cell.childrenOrNull();
            cell = c == null ? null : c.byName.get(names[i]);
        }
        if (cell == null || cell.isDead() || (target.uid() != 0 && cell.path().uid() != target.uid())) {
            return null;
        }
        return (InternalActorRef<U>) cell;
    }
}
