package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ref that keeps what it is told, for synchronous tests with {@link BehaviorTestKit}: hand
 * {@link #ref()} to the behavior under test, run it, then look at what arrived. Nothing waits
 * here: a message is in the inbox once the behavior told it (for asynchronous tests against a
 * running system, use a {@link TestProbe}). A behavior test kit's {@link BehaviorTestKit#selfInbox()
 * self inbox} and its {@link BehaviorTestKit#childInbox children} are inboxes too.
 *
 * <p>Thread-safe: messages may arrive from any thread (a {@code pipeToSelf} future's).
 *
 * @param <T> the message type
 */
public final class TestInbox<T> {

    private static final AtomicLong IDS = new AtomicLong();

    private final ConcurrentLinkedQueue<T> messages = new ConcurrentLinkedQueue<>();
    private final InboxRef ref;

    private TestInbox(ActorPath path, ActorSystem system) {
        this.ref = new InboxRef(path, system);
    }

    /** @param <T> the message type @return a new inbox */
    public static <T> TestInbox<T> create() {
        return create("inbox");
    }

    /**
     * @param name a name for its path (a counter keeps paths apart)
     * @param <T> the message type
     * @return a new inbox
     */
    public static <T> TestInbox<T> create(String name) {
        final ActorSystem system = BehaviorTestKit.system();
        return new TestInbox<>(ActorPath.root(system.name()).child("inbox").child(name + "-" + IDS.incrementAndGet()), system);
    }

    /**
     * @param path the inbox's path
     * @param system the system its ref belongs to
     * @param <T> the message type
     * @return an inbox for a behavior test kit's self or child
     */
    static <T> TestInbox<T> at(ActorPath path, ActorSystem system) {
        return new TestInbox<>(path, system);
    }

    /** @return the ref to hand to the behavior under test */
    public ActorRef<T> ref() {
        return ref;
    }

    /**
     * @return the oldest message, removed
     * @throws AssertionError if the inbox is empty
     */
    public T receiveMessage() {
        final T m = messages.poll();
        if (m == null) {
            throw new AssertionError("no message in inbox " + ref.path());
        }
        return m;
    }

    /**
     * Asserts that the oldest message equals {@code expected} and removes it.
     *
     * @param expected the message expected next
     * @return this inbox
     * @throws AssertionError if the inbox is empty or holds something else first
     */
    public TestInbox<T> expectMessage(T expected) {
        final T m = messages.poll();
        if (m == null) {
            throw new AssertionError("expected message " + expected + " but inbox " + ref.path() + " is empty");
        }
        if (!Objects.equals(expected, m)) {
            throw new AssertionError("expected message " + expected + " but inbox " + ref.path() + " held " + m);
        }
        return this;
    }

    /**
     * @throws AssertionError if a message is waiting
     */
    public void expectNoMessage() {
        final T m = messages.peek();
        if (m != null) {
            throw new AssertionError("expected no message but inbox " + ref.path() + " holds " + m);
        }
    }

    /** @return every message waiting, oldest first, removed */
    public List<T> allReceived() {
        final List<T> out = new ArrayList<>();
        T m;
        while ((m = messages.poll()) != null) {
            out.add(m);
        }
        return out;
    }

    /** @return whether a message is waiting */
    public boolean hasMessages() {
        return !messages.isEmpty();
    }

    T poll() {
        return messages.poll();
    }

    @Override
    public String toString() {
        return "TestInbox(" + ref.path() + ")";
    }

    /** The inbox's ref: a ref of the runtime's kind, so it can be watched and asked. */
    private final class InboxRef extends StubRef<T> {
        InboxRef(ActorPath path, ActorSystem system) {
            super("TestInbox", path, system);
        }

        @Override
        public void tell(T message) {
            messages.add(Objects.requireNonNull(message, "message"));
        }
    }
}
