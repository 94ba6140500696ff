package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.AskTimeoutException;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Something a behavior did through its context while a {@link BehaviorTestKit} ran it: spawned
 * or stopped a child, watched an actor, set a timer or a receive timeout, made a message adapter,
 * started an ask. Each effect has an {@code equals} that compares what a test states (the ref a
 * spawn returned is left out, as a test cannot know it beforehand), so
 * {@code testKit.expectEffect(Effects.spawned(child, "worker"))} works. Build expected effects
 * with {@link Effects}.
 */
public abstract class Effect {

    Effect() {
    }

    /** The behavior spawned a named child. */
    public static final class Spawned<T> extends Effect {
        private final Behavior<T> behavior;
        private final String childName;
        private final Props props;
        private final ActorRef<T> ref;

        Spawned(Behavior<T> behavior, String childName, Props props, ActorRef<T> ref) {
            this.behavior = behavior;
            this.childName = childName;
            this.props = props;
            this.ref = ref;
        }

        /** @return the child's initial behavior */
        public Behavior<T> behavior() {
            return behavior;
        }

        /** @return the child's name */
        public String childName() {
            return childName;
        }

        /** @return the props it was spawned with */
        public Props props() {
            return props;
        }

        /** @return the child's ref (its {@link BehaviorTestKit#childInbox inbox}), or null in an expected effect */
        public ActorRef<T> ref() {
            return ref;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Spawned && behavior.equals(((Spawned<?>) o).behavior)
                && childName.equals(((Spawned<?>) o).childName) && props.toString().equals(((Spawned<?>) o).props.toString());
        }

        @Override
        public int hashCode() {
            return Objects.hash(behavior, childName);
        }

        @Override
        public String toString() {
            return "Spawned(" + behavior + ", " + childName + ", " + props + ")";
        }
    }

    /** The behavior spawned a child with a generated name. */
    public static final class SpawnedAnonymous<T> extends Effect {
        private final Behavior<T> behavior;
        private final Props props;
        private final ActorRef<T> ref;

        SpawnedAnonymous(Behavior<T> behavior, Props props, ActorRef<T> ref) {
            this.behavior = behavior;
            this.props = props;
            this.ref = ref;
        }

        /** @return the child's initial behavior */
        public Behavior<T> behavior() {
            return behavior;
        }

        /** @return the props it was spawned with */
        public Props props() {
            return props;
        }

        /** @return the child's ref, or null in an expected effect */
        public ActorRef<T> ref() {
            return ref;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SpawnedAnonymous && behavior.equals(((SpawnedAnonymous<?>) o).behavior)
                && props.toString().equals(((SpawnedAnonymous<?>) o).props.toString());
        }

        @Override
        public int hashCode() {
            return behavior.hashCode();
        }

        @Override
        public String toString() {
            return "SpawnedAnonymous(" + behavior + ", " + props + ")";
        }
    }

    /** The behavior stopped a child. */
    public static final class Stopped extends Effect {
        private final String childName;

        Stopped(String childName) {
            this.childName = childName;
        }

        /** @return the child's name */
        public String childName() {
            return childName;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Stopped && childName.equals(((Stopped) o).childName);
        }

        @Override
        public int hashCode() {
            return childName.hashCode();
        }

        @Override
        public String toString() {
            return "Stopped(" + childName + ")";
        }
    }

    /** The behavior watched an actor ({@code ctx.watch}). */
    public static final class Watched<T> extends Effect {
        private final ActorRef<T> other;

        Watched(ActorRef<T> other) {
            this.other = other;
        }

        /** @return the watched actor */
        public ActorRef<T> other() {
            return other;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Watched && other.equals(((Watched<?>) o).other);
        }

        @Override
        public int hashCode() {
            return other.hashCode();
        }

        @Override
        public String toString() {
            return "Watched(" + other + ")";
        }
    }

    /** The behavior watched an actor with a message of its own ({@code ctx.watchWith}). */
    public static final class WatchedWith<U, T> extends Effect {
        private final ActorRef<U> other;
        private final T message;

        WatchedWith(ActorRef<U> other, T message) {
            this.other = other;
            this.message = message;
        }

        /** @return the watched actor */
        public ActorRef<U> other() {
            return other;
        }

        /** @return the message the behavior receives when it stops */
        public T message() {
            return message;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof WatchedWith && other.equals(((WatchedWith<?, ?>) o).other) && message.equals(((WatchedWith<?, ?>) o).message);
        }

        @Override
        public int hashCode() {
            return Objects.hash(other, message);
        }

        @Override
        public String toString() {
            return "WatchedWith(" + other + ", " + message + ")";
        }
    }

    /** The behavior stopped watching an actor. */
    public static final class Unwatched<T> extends Effect {
        private final ActorRef<T> other;

        Unwatched(ActorRef<T> other) {
            this.other = other;
        }

        /** @return the actor no longer watched */
        public ActorRef<T> other() {
            return other;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Unwatched && other.equals(((Unwatched<?>) o).other);
        }

        @Override
        public int hashCode() {
            return other.hashCode();
        }

        @Override
        public String toString() {
            return "Unwatched(" + other + ")";
        }
    }

    /** The behavior set a receive timeout. */
    public static final class ReceiveTimeoutSet<T> extends Effect {
        private final Duration timeout;
        private final T message;

        ReceiveTimeoutSet(Duration timeout, T message) {
            this.timeout = timeout;
            this.message = message;
        }

        /** @return the idle time */
        public Duration timeout() {
            return timeout;
        }

        /** @return the message it delivers */
        public T message() {
            return message;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ReceiveTimeoutSet && timeout.equals(((ReceiveTimeoutSet<?>) o).timeout)
                && message.equals(((ReceiveTimeoutSet<?>) o).message);
        }

        @Override
        public int hashCode() {
            return Objects.hash(timeout, message);
        }

        @Override
        public String toString() {
            return "ReceiveTimeoutSet(" + timeout + ", " + message + ")";
        }
    }

    /** The behavior cancelled its receive timeout. */
    public static final class ReceiveTimeoutCancelled extends Effect {
        static final ReceiveTimeoutCancelled INSTANCE = new ReceiveTimeoutCancelled();

        private ReceiveTimeoutCancelled() {
        }

        @Override
        public String toString() {
            return "ReceiveTimeoutCancelled";
        }
    }

    /** How a scheduled timer repeats. */
    public enum TimerMode {
        /** Once. */
        SINGLE,
        /** At a fixed rate. */
        FIXED_RATE,
        /** With a fixed delay between ticks. */
        FIXED_DELAY
    }

    /**
     * The behavior started a timer. The timer does not fire by itself: {@link #send()} delivers
     * its message to the behavior's {@link BehaviorTestKit#selfInbox() self inbox}, as the timer
     * would have, for {@link BehaviorTestKit#runOne()} to process.
     */
    public static final class TimerScheduled<T> extends Effect {
        private final Object key;
        private final T message;
        private final Duration delay;
        private final TimerMode mode;
        private final boolean overriding;
        private final ActorRef<T> self;

        TimerScheduled(Object key, T message, Duration delay, TimerMode mode, boolean overriding, ActorRef<T> self) {
            this.key = key;
            this.message = message;
            this.delay = delay;
            this.mode = mode;
            this.overriding = overriding;
            this.self = self;
        }

        /** @return the timer's key */
        public Object key() {
            return key;
        }

        /** @return the message it delivers */
        public T message() {
            return message;
        }

        /** @return the delay before the first tick (for a periodic timer: the interval follows) */
        public Duration delay() {
            return delay;
        }

        /** @return how it repeats */
        public TimerMode mode() {
            return mode;
        }

        /** @return whether it replaced an active timer of the same key */
        public boolean overriding() {
            return overriding;
        }

        /** Delivers the timer's message to the behavior's self inbox, as one tick would. */
        public void send() {
            if (self == null) {
                throw new IllegalStateException("an expected effect (from Effects) sends nothing");
            }
            self.tell(message);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof TimerScheduled)) {
                return false;
            }
            final TimerScheduled<?> t = (TimerScheduled<?>) o;
            return key.equals(t.key) && message.equals(t.message) && delay.equals(t.delay) && mode == t.mode && overriding == t.overriding;
        }

        @Override
        public int hashCode() {
            return Objects.hash(key, message, delay, mode);
        }

        @Override
        public String toString() {
            return "TimerScheduled(" + key + ", " + message + ", " + delay + ", " + mode + (overriding ? ", overriding" : "") + ")";
        }
    }

    /** The behavior cancelled a timer (or all of them, one effect per timer). */
    public static final class TimerCancelled extends Effect {
        private final Object key;

        TimerCancelled(Object key) {
            this.key = key;
        }

        /** @return the timer's key */
        public Object key() {
            return key;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TimerCancelled && key.equals(((TimerCancelled) o).key);
        }

        @Override
        public int hashCode() {
            return key.hashCode();
        }

        @Override
        public String toString() {
            return "TimerCancelled(" + key + ")";
        }
    }

    /**
     * The behavior made a message adapter. Messages told to the adapter's ref are converted at
     * once and land in the self inbox.
     */
    public static final class MessageAdapter<A, T> extends Effect {
        private final Class<A> messageClass;
        private final Function<A, T> adapter;

        MessageAdapter(Class<A> messageClass, Function<A, T> adapter) {
            this.messageClass = messageClass;
            this.adapter = adapter;
        }

        /** @return the class of the messages it adapts */
        public Class<A> messageClass() {
            return messageClass;
        }

        /**
         * @param message a message of the adapted class
         * @return what the adapter makes of it
         */
        public T adapt(A message) {
            return adapter.apply(message);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MessageAdapter && messageClass.equals(((MessageAdapter<?, ?>) o).messageClass);
        }

        @Override
        public int hashCode() {
            return messageClass.hashCode();
        }

        @Override
        public String toString() {
            return "MessageAdapter(" + messageClass.getName() + ")";
        }
    }

    /**
     * The behavior asked an actor through its context ({@code ctx.ask}). The request has gone to
     * the target (look for it in the target's inbox); the test answers the ask here: with
     * {@link #respondWith} or {@link #timeout()}, at most once, which puts the converted message
     * in the asking behavior's self inbox. {@link #adaptResponse} and {@link #adaptTimeout} test the
     * conversion without sending anything.
     */
    public static final class AskInitiated<Req, Res, T> extends Effect {
        private final ActorRef<Req> target;
        private final Duration timeout;
        private final Class<Res> responseClass;
        private final Req askMessage;
        private final ActorRef<Res> replyTo;
        private final BiFunction<Res, Throwable, T> applyToResponse;
        private final ActorRef<T> self;
        private boolean answered;

        AskInitiated(ActorRef<Req> target, Duration timeout, Class<Res> responseClass, Req askMessage, ActorRef<Res> replyTo,
                     BiFunction<Res, Throwable, T> applyToResponse, ActorRef<T> self) {
            this.target = target;
            this.timeout = timeout;
            this.responseClass = responseClass;
            this.askMessage = askMessage;
            this.replyTo = replyTo;
            this.applyToResponse = applyToResponse;
            this.self = self;
        }

        /** @return the actor asked */
        public ActorRef<Req> target() {
            return target;
        }

        /** @return the ask's timeout */
        public Duration responseTimeout() {
            return timeout;
        }

        /** @return the class of the reply */
        public Class<Res> responseClass() {
            return responseClass;
        }

        /** @return the request sent to the target */
        public Req askMessage() {
            return askMessage;
        }

        /** @return the reply-to ref inside the request */
        public ActorRef<Res> replyTo() {
            return replyTo;
        }

        /**
         * Answers the ask with a reply: its conversion lands in the self inbox.
         *
         * @param response the reply
         */
        public void respondWith(Res response) {
            replyTo.tell(response);
        }

        /** Lets the ask time out: the conversion of an {@link AskTimeoutException} lands in the self inbox. */
        public void timeout() {
            answer(adaptTimeout());
        }

        /**
         * @param response a reply
         * @return what the asking behavior would receive for it
         */
        public T adaptResponse(Res response) {
            return applyToResponse.apply(response, null);
        }

        /** @return what the asking behavior would receive if the ask timed out */
        public T adaptTimeout() {
            return applyToResponse.apply(null, new AskTimeoutException("Ask timed out on [" + target.path()
                + "] after [" + timeout.toMillis() + " ms]. Message of type [" + askMessage.getClass().getName() + "].", target.path(), timeout));
        }

        T convert(Res response, Throwable failure) {
            return applyToResponse.apply(response, failure);
        }

        synchronized void answer(T converted) {
            if (answered) {
                throw new IllegalStateException("the ask of " + target.path() + " was answered already");
            }
            answered = true;
            self.tell(converted);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AskInitiated && target.equals(((AskInitiated<?, ?, ?>) o).target)
                && timeout.equals(((AskInitiated<?, ?, ?>) o).timeout) && responseClass.equals(((AskInitiated<?, ?, ?>) o).responseClass);
        }

        @Override
        public int hashCode() {
            return Objects.hash(target, timeout, responseClass);
        }

        @Override
        public String toString() {
            return "AskInitiated(" + target + ", " + timeout + ", " + responseClass.getName() + ", " + askMessage + ")";
        }
    }

    /** No effect: what {@link BehaviorTestKit#retrieveEffect()} returns when there is none. */
    public static final class NoEffects extends Effect {
        static final NoEffects INSTANCE = new NoEffects();

        private NoEffects() {
        }

        @Override
        public String toString() {
            return "NoEffects";
        }
    }
}
