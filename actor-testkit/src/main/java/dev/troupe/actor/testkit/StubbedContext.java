package dev.troupe.actor.testkit;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.InvalidActorNameException;
import dev.troupe.actor.Props;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.actor.spi.BehaviorDriver;
import dev.troupe.actor.spi.BehaviorHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The context and host of a behavior in a {@link BehaviorTestKit}: instead of acting, it records
 * an {@link Effect} for each thing the behavior does and keeps its messages in inboxes.
 */
final class StubbedContext<T> implements ActorContext<T>, BehaviorHost<T> {

    private final BehaviorTestKit<T> kit;
    private final ActorSystem system;
    private final TestInbox<T> self;
    private final Map<String, BehaviorTestKit<?>> children = new LinkedHashMap<>();
    private final Map<Class<?>, AdapterRef<?>> adapters = new HashMap<>();
    private final StubbedTimers timers = new StubbedTimers();
    private BehaviorDriver<T> driver;
    private Logger log;
    private long anonymous;
    private long asks;

    StubbedContext(BehaviorTestKit<T> kit, ActorSystem system, ActorPath path) {
        this.kit = kit;
        this.system = system;
        this.self = TestInbox.at(path, system);
    }

    void driver(BehaviorDriver<T> driver) {
        this.driver = driver;
    }

    TestInbox<T> selfInbox() {
        return self;
    }

    @SuppressWarnings("unchecked")
    <U> BehaviorTestKit<U> childTestKit(String name) {
        return (BehaviorTestKit<U>) children.get(name);
    }

    List<String> childNames() {
        return new ArrayList<>(children.keySet());
    }

    // ---- BehaviorHost ----

    @Override
    public ActorContext<T> context() {
        return this;
    }

    @Override
    public TimerScheduler<T> timers() {
        return timers;
    }

    @Override
    public void unhandled(Object message) {
        system.deadLetters().publish(message, self.ref().path(), DeadLetterReason.UNHANDLED);
    }

    // ---- ActorContext ----

    @Override
    public ActorRef<T> self() {
        return self.ref();
    }

    @Override
    public ActorSystem system() {
        return system;
    }

    /** Named after the behavior's defining class, as in an actor. */
    @Override
    public Logger log() {
        Logger l = log;
        if (l == null) {
            l = LoggerFactory.getLogger(driver.definingClassName());
            log = l;
        }
        return l;
    }

    @Override
    public <U> ActorRef<U> spawn(Behavior<U> behavior, String name) {
        return spawn(behavior, name, Props.empty());
    }

    @Override
    public <U> ActorRef<U> spawn(Behavior<U> behavior, String name, Props props) {
        Objects.requireNonNull(behavior, "behavior");
        Objects.requireNonNull(props, "props");
        final ActorPath path = childPath(Objects.requireNonNull(name, "name"));
        final ActorRef<U> ref = startChild(name, path, behavior);
        kit.record(new Effect.Spawned<>(behavior, name, props, ref));
        return ref;
    }

    @Override
    public <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior) {
        return spawnAnonymous(behavior, Props.empty());
    }

    @Override
    public <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior, Props props) {
        Objects.requireNonNull(behavior, "behavior");
        Objects.requireNonNull(props, "props");
        final String name = "$" + Long.toString(++anonymous, 36);
        final ActorRef<U> ref = startChild(name, self.ref().path().child(name), behavior);
        kit.record(new Effect.SpawnedAnonymous<>(behavior, props, ref));
        return ref;
    }

    /** The same names as an actor's children: valid path elements, unique, not starting with '$'. */
    private ActorPath childPath(String name) {
        final ActorPath path;
        try {
            path = self.ref().path().child(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidActorNameException(e.getMessage());
        }
        if (name.startsWith("$")) {
            throw new InvalidActorNameException("actor name '" + name + "' must not start with '$': reserved for generated names");
        }
        if (children.containsKey(name)) {
            throw new InvalidActorNameException("actor name '" + name + "' is not unique: " + self.ref().path() + " has such a child");
        }
        return path;
    }

    private <U> ActorRef<U> startChild(String name, ActorPath path, Behavior<U> behavior) {
        final BehaviorTestKit<U> child = BehaviorTestKit.childKit(path, behavior);
        children.put(name, child);
        return child.ref();
    }

    @Override
    public void stop(ActorRef<?> child) {
        final String name = child.path().name();
        final BehaviorTestKit<?> kitOfChild = children.get(name);
        if (kitOfChild == null || !kitOfChild.ref().equals(child)) {
            throw new IllegalArgumentException("only children can be stopped this way: " + child + " is not a child of " + self.ref().path());
        }
        children.remove(name);
        kit.record(new Effect.Stopped(name));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Collection<ActorRef<Void>> children() {
        final List<ActorRef<Void>> refs = new ArrayList<>();
        for (BehaviorTestKit<?> c : children.values()) {
            refs.add((ActorRef<Void>) (ActorRef<?>) c.ref());
        }
        return Collections.unmodifiableList(refs);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Optional<ActorRef<Void>> child(String name) {
        final BehaviorTestKit<?> c = children.get(name);
        return c == null ? Optional.empty() : Optional.of((ActorRef<Void>) (ActorRef<?>) c.ref());
    }

    @Override
    public void watch(ActorRef<?> other) {
        kit.record(new Effect.Watched<>(Objects.requireNonNull(other, "other")));
    }

    @Override
    public void watchWith(ActorRef<?> other, T msg) {
        kit.record(new Effect.WatchedWith<>(Objects.requireNonNull(other, "other"), Objects.requireNonNull(msg, "msg")));
    }

    @Override
    public void unwatch(ActorRef<?> other) {
        kit.record(new Effect.Unwatched<>(Objects.requireNonNull(other, "other")));
    }

    @Override
    public void setReceiveTimeout(Duration timeout, T msg) {
        Objects.requireNonNull(msg, "msg");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("receive timeout must be positive: " + timeout);
        }
        kit.record(new Effect.ReceiveTimeoutSet<>(timeout, msg));
    }

    @Override
    public void cancelReceiveTimeout() {
        kit.record(Effect.ReceiveTimeoutCancelled.INSTANCE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> messageAdapter(Class<U> messageClass, Function<U, T> adapter) {
        Objects.requireNonNull(messageClass, "messageClass");
        Objects.requireNonNull(adapter, "adapter");
        AdapterRef<U> ref = (AdapterRef<U>) adapters.get(messageClass);
        if (ref == null) {
            ref = new AdapterRef<>(self.ref().path().parent() == null ? self.ref().path()
                : self.ref().path().parent().child(self.ref().path().name() + "$adapter-" + messageClass.getSimpleName()));
            adapters.put(messageClass, ref);
        }
        ref.adapter = adapter;
        kit.record(new Effect.MessageAdapter<>(messageClass, adapter));
        return ref;
    }

    @Override
    public <V> void pipeToSelf(CompletionStage<V> future, BiFunction<V, Throwable, T> applyToResult) {
        Objects.requireNonNull(applyToResult, "applyToResult");
        future.whenComplete((value, failure) -> {
            final Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            self.ref().tell(applyToResult.apply(value, cause));
        });
    }

    @Override
    public <Req, Res> void ask(Class<Res> resClass, ActorRef<Req> target, Duration timeout,
                               Function<ActorRef<Res>, Req> createRequest, BiFunction<Res, Throwable, T> applyToResponse) {
        Objects.requireNonNull(resClass, "resClass");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(applyToResponse, "applyToResponse");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("ask timeout must be positive: " + timeout);
        }
        final ActorPath path = ActorPath.root(system.name()).child("temp").child("ask-" + (++asks) + "-of-" + self.ref().path().name());
        final ReplyRef<Req, Res> replyTo = new ReplyRef<>(path, resClass);
        final Req request = Objects.requireNonNull(createRequest.apply(replyTo), "the ask's request factory returned null");
        final Effect.AskInitiated<Req, Res, T> effect =
            new Effect.AskInitiated<>(target, timeout, resClass, request, replyTo, applyToResponse, self.ref());
        replyTo.effect = effect;
        kit.record(effect);
        target.tell(request);
    }

    @Override
    public String toString() {
        return "ActorContext(" + self.ref().path() + ", in a BehaviorTestKit)";
    }

    /** The ref of a message adapter: converts at once, into the self inbox. */
    private final class AdapterRef<U> extends StubRef<U> {
        private volatile Function<U, T> adapter;

        AdapterRef(ActorPath path) {
            super("MessageAdapter", path, system);
        }

        @Override
        public void tell(U message) {
            self.ref().tell(adapter.apply(Objects.requireNonNull(message, "message")));
        }
    }

    /** The reply-to ref of an ask: the first reply is converted into the self inbox. */
    private final class ReplyRef<Req, Res> extends StubRef<Res> {
        private final Class<Res> resClass;
        private Effect.AskInitiated<Req, Res, T> effect;

        ReplyRef(ActorPath path, Class<Res> resClass) {
            super("AskReply", path, system);
            this.resClass = resClass;
        }

        @Override
        public void tell(Res message) {
            Objects.requireNonNull(message, "message");
            final T converted = resClass.isInstance(message) ? effect.adaptResponse(message)
                : effect.convert(null, new ClassCastException("the reply to an ask of " + effect.target().path() + " is a "
                    + message.getClass().getName() + ", not a " + resClass.getName()));
            effect.answer(converted);
        }
    }

    /** Timers that record what the behavior starts and cancels; none fires by itself. */
    private final class StubbedTimers implements TimerScheduler<T> {
        private final Map<Object, T> active = new HashMap<>();

        @Override
        public void startSingleTimer(Object key, T msg, Duration delay) {
            start(key, msg, delay, Effect.TimerMode.SINGLE);
        }

        @Override
        public void startTimerAtFixedRate(Object key, T msg, Duration initialDelay, Duration interval) {
            start(key, msg, initialDelay, Effect.TimerMode.FIXED_RATE);
        }

        @Override
        public void startTimerWithFixedDelay(Object key, T msg, Duration initialDelay, Duration delay) {
            start(key, msg, initialDelay, Effect.TimerMode.FIXED_DELAY);
        }

        private void start(Object key, T msg, Duration delay, Effect.TimerMode mode) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(msg, "msg");
            Objects.requireNonNull(delay, "delay");
            final boolean overriding = active.put(key, msg) != null;
            kit.record(new Effect.TimerScheduled<>(key, msg, delay, mode, overriding, self.ref()));
        }

        @Override
        public boolean isTimerActive(Object key) {
            return active.containsKey(key);
        }

        @Override
        public void cancel(Object key) {
            if (active.remove(key) != null) {
                kit.record(new Effect.TimerCancelled(key));
            }
        }

        @Override
        public void cancelAll() {
            for (Object key : new ArrayList<>(active.keySet())) {
                cancel(key);
            }
        }
    }
}
