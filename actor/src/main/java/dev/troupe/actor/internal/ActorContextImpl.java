package dev.troupe.actor.internal;

import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Props;
import dev.troupe.actor.TimerScheduler;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.actor.spi.BehaviorHost;
import dev.troupe.actor.spi.InternalActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The {@link ActorContext} handed to an actor's behaviors: a facade over its cell, children,
 * death watch, timers and receive timeout. It is a separate object from the actor's ref, so a
 * ref passed around cannot be cast into a context and used from another thread.
 *
 * <p>Actor thread only, like the interface says. Timers, adapters and the logger are created
 * on first use.
 */
final class ActorContextImpl<T> implements ActorContext<T>, BehaviorHost<T> {

    private final ActorCell<T> cell;
    private BehaviorInterpreter<T> interpreter;
    private TimerSchedulerImpl<T> timers;
    private HashMap<Class<?>, MessageAdapterRef<?>> adapters;
    private Logger log;

    ActorContextImpl(ActorCell<T> cell) {
        this.cell = cell;
    }

    void interpreter(BehaviorInterpreter<T> interpreter) {
        this.interpreter = interpreter;
    }

    // ---- BehaviorHost: what the interpreter asks of the actor ----

    @Override
    public ActorContext<T> context() {
        return this;
    }

    @Override
    public void unhandled(Object message) {
        cell.runtime.deadLetters.publish(message, cell.path(), DeadLetterReason.UNHANDLED);
    }

    ActorCell<T> cell() {
        return cell;
    }

    @Override
    public ActorRef<T> self() {
        return cell;
    }

    @Override
    public ActorSystem system() {
        return cell.runtime.system();
    }

    /**
     * The logger is named after the class that defined the actor's behavior when it is first
     * asked for (in setup: the initial behavior), so {@code logging.level.com.acme.orders=DEBUG}
     * reaches the actors whose behaviors {@code com.acme.orders} wrote. Made once per actor.
     */
    @Override
    public Logger log() {
        Logger l = log;
        if (l == null) {
            l = newLogger();
            log = l;
        }
        return l;
    }

    /**
     * The logger, and where an MDC adapter keeps values, the wrapper that puts the actor's MDC
     * entries before its first enabled call of a turn ({@link ActorMdc}).
     */
    private Logger newLogger() {
        final Logger named = LoggerFactory.getLogger(interpreter.definingClassName());
        final ActorMdc mdc = cell.runtime.mdc;
        return mdc == null ? named : new ActorLogger(named, cell, mdc);
    }

    // ---- children ----

    @Override
    public <U> ActorRef<U> spawn(Behavior<U> behavior, String name) {
        return cell.children().spawn(behavior, Objects.requireNonNull(name, "name"), Props.empty());
    }

    @Override
    public <U> ActorRef<U> spawn(Behavior<U> behavior, String name, Props props) {
        return cell.children().spawn(behavior, Objects.requireNonNull(name, "name"), props);
    }

    @Override
    public <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior) {
        return cell.children().spawn(behavior, null, Props.empty());
    }

    @Override
    public <U> ActorRef<U> spawnAnonymous(Behavior<U> behavior, Props props) {
        return cell.children().spawn(behavior, null, props);
    }

    @Override
    public void stop(ActorRef<?> child) {
        cell.children().stop(child);
    }

    @Override
    public Collection<ActorRef<Void>> children() {
        final Children c = cell.childrenOrNull();
        return c == null ? List.of() : c.live();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Optional<ActorRef<Void>> child(String name) {
        final Children children = cell.childrenOrNull();
        final ActorCell<?> c = children == null ? null : children.live(name);
        return c == null ? Optional.empty() : Optional.of((ActorRef<Void>) (ActorRef<?>) c);
    }

    // ---- death watch ----

    @Override
    public void watch(ActorRef<?> other) {
        cell.actor().deathWatch().watch(watchable(other), DeathWatch.SIGNAL);
    }

    @Override
    public void watchWith(ActorRef<?> other, T msg) {
        cell.actor().deathWatch().watch(watchable(other), Objects.requireNonNull(msg, "msg"));
    }

    @Override
    public void unwatch(ActorRef<?> other) {
        cell.actor().deathWatch().unwatch(watchable(other));
    }

    private static InternalActorRef<?> watchable(ActorRef<?> ref) {
        if (ref instanceof InternalActorRef) {
            return (InternalActorRef<?>) ref;
        }
        throw new IllegalArgumentException("cannot watch " + ref + ": not a ref made by the runtime");
    }

    // ---- receive timeout and timers ----

    @Override
    public void setReceiveTimeout(Duration timeout, T msg) {
        Objects.requireNonNull(msg, "msg");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("receive timeout must be positive: " + timeout);
        }
        ReceiveTimeout rt = cell.receiveTimeout;
        if (rt == null) {
            rt = new ReceiveTimeout(cell, cell.runtime.timers);
            cell.receiveTimeout = rt;
        }
        rt.set(timeout.toNanos(), msg);
    }

    @Override
    public void cancelReceiveTimeout() {
        final ReceiveTimeout rt = cell.receiveTimeout;
        if (rt != null) {
            rt.cancel();
        }
    }

    /** @return the actor's timers, created on first use */
    @Override
    public TimerScheduler<T> timers() {
        TimerSchedulerImpl<T> t = timers;
        if (t == null) {
            t = new TimerSchedulerImpl<>(cell, cell.runtime.timers);
            timers = t;
        }
        return t;
    }

    /** Cancels what belongs to one incarnation of the actor: its timers and receive timeout (on stop and restart). */
    void cancelIncarnation() {
        if (timers != null) {
            timers.cancelAll();
        }
        cancelReceiveTimeout();
    }

    // ---- adapters ----

    @Override
    @SuppressWarnings("unchecked")
    public <U> ActorRef<U> messageAdapter(Class<U> messageClass, Function<U, T> adapter) {
        Objects.requireNonNull(messageClass, "messageClass");
        Objects.requireNonNull(adapter, "adapter");
        if (adapters == null) {
            adapters = new HashMap<>();
        }
        MessageAdapterRef<U> ref = (MessageAdapterRef<U>) adapters.get(messageClass);
        if (ref == null) {
            final ActorPath path = cell.path();
            final ActorPath adapterPath = path.parent() == null ? path
                : path.parent().child(path.name() + "$adapter-" + messageClass.getSimpleName(), path.uid());
            ref = new MessageAdapterRef<>(cell, adapterPath, adapter);
            adapters.put(messageClass, ref);
        } else {
            ref.adapter = adapter;
        }
        return ref;
    }

    @Override
    public <V> void pipeToSelf(CompletionStage<V> future, BiFunction<V, Throwable, T> applyToResult) {
        Objects.requireNonNull(applyToResult, "applyToResult");
        final ActorCell<T> c = cell;
        future.whenComplete((value, failure) -> {
            final Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            c.tellInternal(new AdaptMessage(value, cause, applyToResult));
        });
    }

    @Override
    public <Req, Res> void ask(Class<Res> resClass, ActorRef<Req> target, Duration timeout,
                               Function<ActorRef<Res>, Req> createRequest, BiFunction<Res, Throwable, T> applyToResponse) {
        Objects.requireNonNull(resClass, "resClass");
        Objects.requireNonNull(applyToResponse, "applyToResponse");
        final ActorCell<T> c = cell;
        // The reply ref checks the reply's class and the timer fails it; either way the outcome
        // comes back through the mailbox, to be converted on this actor's thread.
        PromiseRef.ask(c.runtime, target, timeout, resClass, createRequest).future()
            .whenComplete((reply, failure) -> c.tellInternal(new AdaptMessage(reply, failure, applyToResponse)));
    }

    @Override
    public String toString() {
        return "ActorContext(" + cell.path() + ")";
    }
}
