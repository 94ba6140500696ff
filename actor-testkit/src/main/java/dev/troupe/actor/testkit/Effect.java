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
 * started an ask. Effects are records (but for {@link AskInitiated}, which a test answers once);
 * where an effect holds something a test cannot know beforehand (the ref a spawn returned, the
 * ref a timer's tick goes to, the adapter function), its {@code equals} leaves it out, so
 * {@code testKit.expectEffect(Effects.spawned(child, "worker"))} works. Build expected effects
 * with {@link Effects}.
 */
public sealed interface Effect {

    /**
     * The behavior spawned a named child.
     *
     * @param behavior the child's initial behavior
     * @param childName the child's name
     * @param props the props it was spawned with (compared by their text)
     * @param ref the child's ref (its {@link BehaviorTestKit#childInbox inbox}), or null in an expected effect; not compared
     * @param <T> the child's message type
     */
    record Spawned<T>(Behavior<T> behavior, String childName, Props props, ActorRef<T> ref) implements Effect {
        @Override
        public boolean equals(Object o) {
            return o instanceof Spawned<?> s && behavior.equals(s.behavior) && childName.equals(s.childName)
                && props.toString().equals(s.props.toString());
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

    /**
     * The behavior spawned a child with a generated name.
     *
     * @param behavior the child's initial behavior
     * @param props the props it was spawned with (compared by their text)
     * @param ref the child's ref, or null in an expected effect; not compared
     * @param <T> the child's message type
     */
    record SpawnedAnonymous<T>(Behavior<T> behavior, Props props, ActorRef<T> ref) implements Effect {
        @Override
        public boolean equals(Object o) {
            return o instanceof SpawnedAnonymous<?> s && behavior.equals(s.behavior) && props.toString().equals(s.props.toString());
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

    /**
     * The behavior stopped a child.
     *
     * @param childName the child's name
     */
    record Stopped(String childName) implements Effect {
    }

    /**
     * The behavior watched an actor ({@code ctx.watch}).
     *
     * @param other the watched actor
     * @param <T> its message type
     */
    record Watched<T>(ActorRef<T> other) implements Effect {
    }

    /**
     * The behavior watched an actor with a message of its own ({@code ctx.watchWith}).
     *
     * @param other the watched actor
     * @param message the message the behavior receives when it stops
     * @param <U> the watched actor's message type
     * @param <T> the watcher's message type
     */
    record WatchedWith<U, T>(ActorRef<U> other, T message) implements Effect {
    }

    /**
     * The behavior stopped watching an actor.
     *
     * @param other the actor no longer watched
     * @param <T> its message type
     */
    record Unwatched<T>(ActorRef<T> other) implements Effect {
    }

    /**
     * The behavior set a receive timeout.
     *
     * @param timeout the idle time
     * @param message the message it delivers
     * @param <T> the message type
     */
    record ReceiveTimeoutSet<T>(Duration timeout, T message) implements Effect {
    }

    /** The behavior cancelled its receive timeout. */
    record ReceiveTimeoutCancelled() implements Effect {
        static final ReceiveTimeoutCancelled INSTANCE = new ReceiveTimeoutCancelled();
    }

    /** How a scheduled timer repeats. */
    enum TimerMode {
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
     *
     * @param key the timer's key
     * @param message the message it delivers
     * @param delay the delay before the first tick (for a periodic timer: the interval follows)
     * @param mode how it repeats
     * @param overriding whether it replaced an active timer of the same key
     * @param self where its ticks go (the self inbox), or null in an expected effect; not compared
     * @param <T> the message type
     */
    record TimerScheduled<T>(Object key, T message, Duration delay, TimerMode mode, boolean overriding, ActorRef<T> self)
        implements Effect {

        /** Delivers the timer's message to the behavior's self inbox, as one tick would. */
        public void send() {
            if (self == null) {
                throw new IllegalStateException("an expected effect (from Effects) sends nothing");
            }
            self.tell(message);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TimerScheduled<?> t && key.equals(t.key) && message.equals(t.message) && delay.equals(t.delay)
                && mode == t.mode && overriding == t.overriding;
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

    /**
     * The behavior cancelled a timer (or all of them, one effect per timer).
     *
     * @param key the timer's key
     */
    record TimerCancelled(Object key) implements Effect {
    }

    /**
     * The behavior made a message adapter. Messages told to the adapter's ref are converted at
     * once and land in the self inbox.
     *
     * @param messageClass the class of the messages it adapts
     * @param adapter the conversion; not compared
     * @param <A> the adapted type
     * @param <T> the behavior's message type
     */
    record MessageAdapter<A, T>(Class<A> messageClass, Function<A, T> adapter) implements Effect {

        /**
         * @param message a message of the adapted class
         * @return what the adapter makes of it
         */
        public T adapt(A message) {
            return adapter.apply(message);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MessageAdapter<?, ?> m && messageClass.equals(m.messageClass);
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
     * conversion without sending anything. A class rather than a record: it keeps whether it was
     * answered.
     */
    final class AskInitiated<Req, Res, T> implements Effect {
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
    record NoEffects() implements Effect {
        static final NoEffects INSTANCE = new NoEffects();
    }
}
