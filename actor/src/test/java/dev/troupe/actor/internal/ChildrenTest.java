package dev.troupe.actor.internal;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.InvalidActorNameException;
import dev.troupe.actor.spi.ActorSystemSpi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The child table: names reserved once, lookups without a lock, growth and shrinking. */
class ChildrenTest {

    private static final Behavior<Object> IDLE = Behaviors.ignore();

    private ActorSystem system;
    private SystemRuntime runtime;

    @BeforeEach
    void start() {
        system = ActorSystem.create("children");
        runtime = (SystemRuntime) ActorSystemSpi.of(system);
    }

    @AfterEach
    void stop() throws Exception {
        system.terminate().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** A cell that is never started: the table only needs its name. */
    private ActorCell<Object> cell(ActorCell<?> parent, String name) {
        return new ActorCell<>(runtime, parent, name, 1, runtime.dispatchers.defaultDispatcher(), 0, 16, false, IDLE);
    }

    @Test
    void namesAreReservedOnceFoundAndForgottenAndTheTableShrinksWhenChildrenGo() {
        final ActorCell<Object> owner = cell(null, "owner");
        final Children children = new Children(owner);
        final int n = 100_000;
        final List<ActorCell<Object>> cells = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final ActorCell<Object> c = cell(owner, "e" + i);
            cells.add(c);
            assertThat(children.reserve(c)).isTrue();
        }
        assertThat(children.size()).isEqualTo(n);
        assertThat(children.reserve(cell(owner, "e42"))).as("a taken name").isFalse();
        // At most three quarters full, at least three eighths: 8 bytes a slot, 11 to 21 bytes a child.
        assertThat(children.tableCapacity()).isBetween(n * 4 / 3, n * 8 / 3);
        for (int i = 0; i < n; i++) {
            assertThat(children.get("e" + i)).isSameAs(cells.get(i));
        }
        assertThat(children.get("e" + n)).isNull();
        for (int i = 0; i < n; i += 2) {
            children.remove(cells.get(i));
        }
        assertThat(children.size()).isEqualTo(n / 2);
        for (int i = 0; i < n; i++) {
            assertThat(children.get("e" + i)).isSameAs(i % 2 == 0 ? null : cells.get(i));
        }
        // A removed name can be taken again.
        final ActorCell<Object> again = cell(owner, "e0");
        assertThat(children.reserve(again)).isTrue();
        assertThat(children.get("e0")).isSameAs(again);
        children.remove(again);
        for (int i = 1; i < n - 10; i += 2) {
            children.remove(cells.get(i));
        }
        // Ten children left: the table gave its memory back (down to at most twice what they need).
        assertThat(children.size()).isEqualTo(5);
        assertThat(children.tableCapacity()).isLessThanOrEqualTo(16);
        for (int i = n - 10; i < n; i++) {
            assertThat(children.get("e" + i)).isSameAs(i % 2 == 0 ? null : cells.get(i));
        }
    }

    /**
     * Writers on several threads (as under a guardian) reserve overlapping names while readers look
     * names up: each name is reserved exactly once, and a reader always finds a name whose
     * reservation finished before its lookup began, across every growth of the table.
     */
    @Test
    void concurrentReservationsAndLookupsAreConsistent() throws Exception {
        final ActorCell<Object> owner = cell(null, "owner");
        final Children children = new Children(owner);
        final int names = 50_000;
        final int writers = 4;
        final AtomicIntegerArray reserved = new AtomicIntegerArray(names);
        final AtomicInteger winners = new AtomicInteger();
        final AtomicLong missed = new AtomicLong();
        final AtomicInteger done = new AtomicInteger();
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            threads.add(new Thread(() -> {
                await(go);
                for (int i = 0; i < names; i++) {
                    if (children.reserve(cell(owner, "n" + i))) {
                        winners.incrementAndGet();
                        reserved.set(i, 1);
                    }
                }
                done.incrementAndGet();
            }));
        }
        for (int r = 0; r < 2; r++) {
            threads.add(new Thread(() -> {
                await(go);
                int i = 0;
                while (done.get() < writers) {
                    i = (i + 7919) % names;
                    if (reserved.get(i) == 1 && children.get("n" + i) == null) {
                        missed.incrementAndGet();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(winners.get()).isEqualTo(names);
        assertThat(children.size()).isEqualTo(names);
        assertThat(missed.get()).isZero();
        for (int i = 0; i < names; i++) {
            assertThat(children.get("n" + i)).isNotNull();
        }
    }

    /** Top-level actors spawned from several threads with the same names: one actor per name. */
    @Test
    void spawnsUnderAGuardianFromManyThreadsReserveEachNameOnce() throws Exception {
        final int names = 2_000;
        final AtomicInteger spawned = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        final List<ActorRef<Object>> refs = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                await(go);
                for (int i = 0; i < names; i++) {
                    try {
                        refs.add(system.spawn(IDLE, "a" + i));
                        spawned.incrementAndGet();
                    } catch (InvalidActorNameException e) {
                        refused.incrementAndGet();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(spawned.get()).isEqualTo(names);
        assertThat(refused.get()).isEqualTo(3 * names);
        final ActorSystemSpi spi = ActorSystemSpi.of(system);
        for (ActorRef<Object> ref : refs) {
            assertThat(spi.<Object>resolveLocal(ref.path())).isSameAs(ref);
        }
        assertThat(system.metrics().liveActors()).isEqualTo(names);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
