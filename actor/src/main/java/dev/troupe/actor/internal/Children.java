package dev.troupe.actor.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.InvalidActorNameException;
import dev.troupe.actor.MailboxSettings;
import dev.troupe.actor.Props;
import dev.troupe.actor.spi.InternalActorRef;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An actor's children by name, and the path lookup that walks them. Created with the first
 * child: an actor without children has none.
 *
 * <h2>The table</h2>
 * One actor may have a million children (a shard and its entities), so an entry must be small:
 * the table is open addressing with linear probing over two parallel arrays, the children's
 * cells (the name is the cell's own) and their names' hashes, so a probe compares ints and
 * touches a cell only when the hash matches. That is 8 bytes a slot, 11 to 21 bytes a child at
 * the load factors kept (3/8 to 3/4), against about 40 for a {@code ConcurrentHashMap} entry.
 * A removed child leaves a tombstone; the table is rebuilt (tombstones dropped) when live
 * entries and tombstones fill three quarters of it, and halves when fewer than an eighth of its
 * slots hold children, so a parent whose children stopped gives the memory back.
 *
 * <h2>Threads</h2>
 * Writers (spawn, removal) take this object's lock: the owner's own thread in the common case
 * (uncontended), any thread spawning under a guardian ({@code ActorSystem.spawn}), so a name is
 * reserved atomically. Readers (lookups from any thread, the metrics walk) take no lock: they
 * read the current {@link Table} (published with a release store once filled) and probe it. A
 * slot between a name's home and its entry never turns empty while that table is current (a
 * removal leaves a tombstone), so a reader never stops short of an entry that was there when
 * it began; an entry added after it began may be missed, and a removed child may still be seen
 * (it has stopped: readers check). A child is removed when its {@code ChildTerminated} reaches
 * the parent, on the parent's thread.
 */
final class Children {

    private static final AtomicLong ANONYMOUS = new AtomicLong();

    private static final int MIN_CAPACITY = 8;
    /** The tombstone: marks the slot of a removed child. */
    private static final Object REMOVED = new Object();

    private static final VarHandle TABLE;
    private static final VarHandle COUNT;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(Children.class, "table", Table.class);
            COUNT = MethodHandles.lookup().findVarHandle(Children.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One generation of the table: replaced whole on rebuild, filled before it is published. */
    private static final class Table {
        /** A child's cell, {@link #REMOVED}, or null (never used). */
        final Object[] cells;
        /** The hash of the name in the same slot. */
        final int[] hashes;

        Table(int capacity) {
            cells = new Object[capacity];
            hashes = new int[capacity];
        }
    }

    private final ActorCell<?> owner;
    private Table table = new Table(MIN_CAPACITY);
    /** Live children; written under the lock (release stores: no fence per spawn), read with acquire loads. */
    private int count;
    /** Tombstones in the current table; under the lock. */
    private int removed;

    Children(ActorCell<?> owner) {
        this.owner = owner;
    }

    // =====================================================================================
    // Spawning
    // =====================================================================================

    /**
     * Creates a guardian child ({@code /user}, {@code /system}).
     *
     * @param name the guardian's name
     * @return the guardian, not yet started
     */
    ActorCell<Object> spawnGuardian(String name) {
        final ActorCell<Object> g = new ActorCell<>(owner.runtime, owner, ActorPath.validatePathElement(name), 0, owner.dispatcher, 0,
            16, false, ActorCell.guardianBehavior());
        if (!reserve(g)) {
            throw new IllegalStateException("guardian " + name + " exists");
        }
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
            childName = anonymousName();
        } else if (name.startsWith("$")) {
            throw new InvalidActorNameException("actor name '" + name + "' must not start with '$': reserved for generated names");
        } else {
            childName = ActorPath.validatePathElement(name);
        }
        if (owner.isDead()) {
            throw new IllegalStateException("cannot spawn '" + childName + "': " + owner.path() + " has stopped");
        }
        long uid;
        do {
            uid = ThreadLocalRandom.current().nextLong();
        } while (uid == 0);
        final SystemRuntime runtime = owner.runtime;
        final Dispatcher d = runtime.dispatchers.select(props);
        final MailboxSettings defaults = runtime.settings().defaultMailbox();
        final int bound = props.mailboxCapacity() < 0 ? defaults.capacity() : props.mailboxCapacity();
        final ActorCell<U> child = new ActorCell<>(runtime, owner, childName, uid, d, bound, defaults.initialCapacity(), props.metrics(),
            behavior);
        if (!reserve(child)) {
            runtime.dispatchers.release(d);
            throw new InvalidActorNameException("actor name '" + childName + "' is not unique: " + owner.path()
                + " already has a child of that name");
        }
        runtime.metrics.spawned.incrementAndGet();
        if (child.view != null) {
            runtime.metrics.tracked.add(child.view);
        }
        child.start();
        // The parent may have begun stopping after our name check: it stops the children it sees
        // (under the lock we released after inserting), so either it saw this child or this read
        // sees its state: no child outlives it.
        if (owner.state() >= ActorCell.TERMINATING) {
            child.sendSystem(CellMessage.Terminate.INSTANCE);
        }
        return child;
    }

    /**
     * @return {@code $} and the next number of the process-wide counter in base 36, built as one
     *         string: {@code "$" + Long.toString(n, 36)} made two more and a 65-byte buffer per spawn
     */
    private static String anonymousName() {
        long n = ANONYMOUS.incrementAndGet();
        int digits = 1;
        for (long v = n; v >= 36; v /= 36) {
            digits++;
        }
        final char[] chars = new char[digits + 1];
        chars[0] = '$';
        for (int i = digits; i > 0; i--) {
            chars[i] = Character.forDigit((int) (n % 36), 36);
            n /= 36;
        }
        return new String(chars);
    }

    // =====================================================================================
    // Stopping
    // =====================================================================================

    /**
     * Stops a child from any thread.
     *
     * @param ref the child
     * @throws IllegalArgumentException if it is not a child of the owner
     */
    void stop(ActorRef<?> ref) {
        final ActorCell<?> child = ref instanceof ActorCell ? get(((ActorCell<?>) ref).name()) : null;
        if (child == null || child != ref) {
            throw new IllegalArgumentException("only children of " + owner.path() + " can be stopped this way, not " + ref.path()
                + " (an actor stops itself by returning Behaviors.stopped())");
        }
        child.sendSystem(CellMessage.Terminate.INSTANCE);
    }

    /** Asks every child to stop (the owner is stopping or restarting). */
    void stopAll() {
        // Under the lock: a spawn under a guardian racing with the guardian's stop either inserted
        // before this walk (and is stopped here) or sees the owner's state after it.
        synchronized (this) {
            final Object[] cells = table.cells;
            for (int i = 0; i < cells.length; i++) {
                final Object c = cells[i];
                if (c instanceof ActorCell) {
                    ((ActorCell<?>) c).sendSystem(CellMessage.Terminate.INSTANCE);
                }
            }
        }
    }

    /** @param child a child that has fully stopped */
    void remove(ActorCell<?> child) {
        synchronized (this) {
            final Table t = table;
            final int mask = t.cells.length - 1;
            final int h = hash(child.name());
            for (int i = h & mask; ; i = (i + 1) & mask) {
                final Object c = t.cells[i];
                if (c == null) {
                    return;
                }
                if (c == child) {
                    SLOT.setRelease(t.cells, i, REMOVED);
                    COUNT.setRelease(this, count - 1);
                    removed++;
                    if (t.cells.length > MIN_CAPACITY && count < t.cells.length >> 3) {
                        rebuild(capacityFor(count));
                    }
                    return;
                }
            }
        }
    }

    // =====================================================================================
    // Reading (any thread)
    // =====================================================================================

    boolean isEmpty() {
        return size() == 0;
    }

    /** @return the slots of the current table (for tests and the memory figures in the docs) */
    int tableCapacity() {
        return ((Table) TABLE.getAcquire(this)).cells.length;
    }

    int size() {
        return (int) COUNT.getAcquire(this);
    }

    /**
     * @param name a name
     * @return the child of that name, alive or not yet removed, or null
     */
    ActorCell<?> get(String name) {
        final Table t = (Table) TABLE.getAcquire(this);
        final Object[] cells = t.cells;
        final int[] hashes = t.hashes;
        final int mask = cells.length - 1;
        final int h = hash(name);
        for (int i = h & mask; ; i = (i + 1) & mask) {
            final Object c = SLOT.getAcquire(cells, i);
            if (c == null) {
                return null;
            }
            if (hashes[i] == h && c instanceof ActorCell && ((ActorCell<?>) c).name().equals(name)) {
                return (ActorCell<?>) c;
            }
        }
    }

    /** @return a snapshot of the live children */
    @SuppressWarnings("unchecked")
    Collection<ActorRef<Void>> live() {
        final Object[] cells = ((Table) TABLE.getAcquire(this)).cells;
        final List<ActorRef<Void>> out = new ArrayList<>(size());
        for (int i = 0; i < cells.length; i++) {
            final Object c = SLOT.getAcquire(cells, i);
            if (c instanceof ActorCell && !((ActorCell<?>) c).isDead()) {
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
        final ActorCell<?> c = get(name);
        return c == null || c.isDead() ? null : c;
    }

    /** Pushes the live children, for a walk of the tree (metrics). */
    void pushLive(ArrayDeque<ActorCell<?>> stack) {
        final Object[] cells = ((Table) TABLE.getAcquire(this)).cells;
        for (int i = 0; i < cells.length; i++) {
            final Object c = SLOT.getAcquire(cells, i);
            if (c instanceof ActorCell && !((ActorCell<?>) c).isDead()) {
                stack.push((ActorCell<?>) c);
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
            cell = c == null ? null : c.get(names[i]);
        }
        if (cell == null || cell.isDead() || (target.uid() != 0 && cell.uid != target.uid())) {
            return null;
        }
        return (InternalActorRef<U>) cell;
    }

    // =====================================================================================
    // The table (under the lock)
    // =====================================================================================

    /**
     * Reserves the child's name: adds it unless a child of that name is there.
     *
     * @param child the new child
     * @return false if the name is taken
     */
    boolean reserve(ActorCell<?> child) {
        synchronized (this) {
            return insert(child);
        }
    }

    /** @return false if a child of that name is there */
    private boolean insert(ActorCell<?> child) {
        Table t = table;
        if (count + removed + 1 > (t.cells.length >> 2) * 3) {
            rebuild(capacityFor(count + 1));
            t = table;
        }
        final Object[] cells = t.cells;
        final int mask = cells.length - 1;
        final int h = hash(child.name());
        int free = -1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            final Object c = cells[i];
            if (c == null) {
                if (free < 0) {
                    free = i;
                }
                break;
            }
            if (c == REMOVED) {
                if (free < 0) {
                    free = i;
                }
            } else if (t.hashes[i] == h && ((ActorCell<?>) c).name().equals(child.name())) {
                return false;
            }
        }
        if (cells[free] == REMOVED) {
            removed--;
        }
        // The hash first, then the cell with a release store: a reader that sees the cell sees its hash.
        t.hashes[free] = h;
        SLOT.setRelease(cells, free, child);
        COUNT.setRelease(this, count + 1);
        return true;
    }

    /** Copies the live children into a fresh table of {@code capacity} slots and publishes it. */
    private void rebuild(int capacity) {
        final Table old = table;
        final Table fresh = new Table(capacity);
        final int mask = capacity - 1;
        for (int j = 0; j < old.cells.length; j++) {
            final Object c = old.cells[j];
            if (c instanceof ActorCell) {
                final int h = old.hashes[j];
                int i = h & mask;
                while (fresh.cells[i] != null) {
                    i = (i + 1) & mask;
                }
                fresh.cells[i] = c;
                fresh.hashes[i] = h;
            }
        }
        removed = 0;
        // Filled before it is published: a reader that sees the new table sees its contents.
        TABLE.setRelease(this, fresh);
    }

    /** @return the table size that holds {@code children} at a load of at most a half */
    private static int capacityFor(int children) {
        final int wanted = Math.max(MIN_CAPACITY, children * 2);
        return Integer.highestOneBit(wanted - 1) << 1;
    }

    /**
     * The name's hash, mixed (MurmurHash3's finalizer): linear probing needs neighbouring keys
     * spread out, and {@code String.hashCode} of names like {@code e41}, {@code e42} are neighbours.
     */
    private static int hash(String name) {
        final int n = name.hashCode();
        int h = n >>> 4;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return (h << 4) | (n & 15);
    }
}
