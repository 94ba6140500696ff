package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.remote.RemoteDeliveryException;
import dev.troupe.remote.RemoteFailure;
import dev.troupe.remote.SerializerRegistry;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this node learns and says about messages that could not be delivered: the reports other
 * nodes send about messages from here (FAILURE frames: counted by reason, the most recent kept,
 * logged at most once per 10 s per reason), the count of notices this node did not send (rate
 * limit, full buffer), and the rate-limited warnings about messages that could not be serialized
 * or deserialized, or whose class no serializer allows. Every line names the class and the fix.
 * Thread-safe; the failure path only: allocates.
 */
final class FailureReports {

    private static final System.Logger LOG = System.getLogger("dev.troupe.remote.RemoteTransport");
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** How many reports {@link #recent()} keeps. */
    static final int RECENT = 32;

    private final SerializerRegistry serializers;
    private final ArrayDeque<RemoteFailure> recent = new ArrayDeque<>();
    private final AtomicLong[] reported = counters(DeadLetterReason.values().length);
    private final AtomicLong[] lastReportLog = counters(DeadLetterReason.values().length);
    private final AtomicLong noticesDropped = new AtomicLong();
    private final AtomicLong lastFailureLog = new AtomicLong();
    private final AtomicLong lastNotAllowedLog = new AtomicLong();
    private final AtomicLong lastNoSerializerLog = new AtomicLong();

    FailureReports(SerializerRegistry serializers) {
        this.serializers = serializers;
    }

    // ---------------------------------------------------------------- reports from other nodes

    private static DeadLetterReason reasonOf(int failure) {
        switch (failure) {
            case Protocol.FAILURE_UNKNOWN_RECIPIENT: return DeadLetterReason.UNKNOWN_RECIPIENT;
            case Protocol.FAILURE_TYPE_MISMATCH: return DeadLetterReason.TYPE_MISMATCH;
            case Protocol.FAILURE_NO_SERIALIZER: return DeadLetterReason.NO_SERIALIZER;
            default: return DeadLetterReason.SERIALIZATION_FAILED;
        }
    }

    /**
     * A node reported that a message from here could not be delivered: counted, kept among the
     * recent failures (bounded), logged at WARN at most once per 10 s per reason.
     *
     * @param askFailed whether the report fails an ask of this node
     * @return the exception such an ask fails with
     */
    RemoteDeliveryException reported(String peerAddress, Frames.Failure f, boolean askFailed) {
        final DeadLetterReason reason = reasonOf(f.reason());
        reported[reason.ordinal()].incrementAndGet();
        String type = f.messageType();
        if (type.startsWith("serializer ")) {
            // the other node does not know the serializer id: name the class this node registered with it
            try {
                type = serializers.typeName(Integer.parseInt(type.substring("serializer ".length())));
            } catch (NumberFormatException e) {
                // keep the text as sent
            }
        }
        final RemoteFailure entry = new RemoteFailure(Instant.now(), peerAddress, reason, f.recipient(), type, askFailed);
        synchronized (recent) {
            if (recent.size() == RECENT) {
                recent.pollFirst();
            }
            recent.addLast(entry);
        }
        final RemoteDeliveryException e = new RemoteDeliveryException(peerAddress, reason, f.recipient(), type);
        if (due(lastReportLog[reason.ordinal()])) {
            LOG.log(System.Logger.Level.WARNING, peerAddress + " could not deliver a " + LogText.escape(type) + " from this node to "
                + LogText.escape(f.recipient()) + ": " + reason.tag() + (askFailed ? ", the ask failed at once" : ", it was a tell")
                + "; " + hint(reason) + " (further " + reason.tag() + " reports in the next 10 s not logged;"
                + " RemoteTransport.recentFailures() keeps the last " + RECENT + ")");
        }
        return e;
    }

    private static String hint(DeadLetterReason reason) {
        switch (reason) {
            case UNKNOWN_RECIPIENT:
                return "nothing is published at that path there: check the path (troupe.remote.refs.<name>.path with the Spring Boot"
                    + " starter) and that the actor is published (RemoteTransport.publish; the starter publishes @TroupeActor beans)";
            case TYPE_MISMATCH:
                return "the actor there accepts another class: send the class it was published with (or declared in its reply-to ref)";
            case NO_SERIALIZER:
                return "that node has no serializer for the class or does not allow it: give every node the same serializers"
                    + " (SerializerRegistry; JacksonSerializer.Builder.allowClass/allowPackage)";
            default:
                return "that node could not deserialize it: with JacksonSerializer the class needs a creator Jackson can use (a record,"
                    + " or a @JsonCreator or no-argument constructor), and both nodes need the same version of it";
        }
    }

    /** @return the most recent reports, oldest first */
    List<RemoteFailure> recent() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }

    long reported(DeadLetterReason reason) {
        return reported[reason.ordinal()].get();
    }

    // ---------------------------------------------------------------- notices this node sends

    /** A failure notice to the sending node was not sent (rate limit or full buffer). */
    void noticeSuppressed() {
        noticesDropped.incrementAndGet();
    }

    long noticesDropped() {
        return noticesDropped.get();
    }

    // ---------------------------------------------------------------- rate-limited warnings

    private static boolean due(AtomicLong last) {
        final long now = System.nanoTime();
        final long l = last.get();
        return (l == 0 || now - l > LOG_INTERVAL_NANOS) && last.compareAndSet(l, now);
    }

    /** A tell of a class no serializer handles (WARN, at most once per 10 s): names the class and the fix. */
    void logNoSerializer(Class<?> type, ActorPath recipient) {
        if (due(lastNoSerializerLog)) {
            LOG.log(System.Logger.Level.WARNING, "no serializer handles " + type.getName() + " (a message to " + recipient
                + "), so it went to dead letters as no-serializer: mark it (implement dev.troupe.remote.CborSerializable, with"
                + " JacksonSerializer.registerMarkers(builder) in the registry), register one (SerializerRegistry.Builder.register("
                + type.getSimpleName() + ".class, ...)) or allow it in the JacksonSerializer fallback (JacksonSerializer.Builder"
                + ".allowClass(\"" + type.getName() + "\") or allowPackage(\"" + type.getPackageName() + "\")); with the Spring Boot"
                + " starter, in the SerializerRegistry bean; give every node the same serializers (further ones in the next 10 s not logged)");
        }
    }

    /** A peer advertised a class this node does not allow (WARN, at most once per 10 s): names the class and the fix. */
    void logNotAllowed(String peer, String className) {
        if (due(lastNotAllowedLog)) {
            final String c = LogText.escape(className);
            LOG.log(System.Logger.Level.WARNING, LogText.escape(peer) + " sends messages of class " + c + ", which no serializer of"
                + " this node allows, so they go to dead letters (unknown-manifest) and the sender is told: if the class is yours,"
                + " allow it here (JacksonSerializer.registerMarkers for a marked class, JacksonSerializer.Builder"
                + ".allowClass(\"" + c + "\") or allowPackage of its package, or"
                + " SerializerRegistry.Builder.register; with the Spring Boot starter, in the SerializerRegistry bean)"
                + " (further ones in the next 10 s not logged)");
        }
    }

    /** A message from a peer that its serializer could not read (WARN, at most once per 10 s): names the class and the fix. */
    void logDeserializationFailure(String peer, String typeName, int serializerId, ActorPath recipient, Throwable e) {
        if (due(lastFailureLog)) {
            LOG.log(System.Logger.Level.WARNING, "cannot deserialize a " + LogText.escape(typeName) + " (serializer " + serializerId
                + ") from " + LogText.escape(peer) + " for " + recipient + ": " + LogText.escape(String.valueOf(e.getMessage()))
                + "; it went to dead letters as serialization-failed and the sender is told. With JacksonSerializer the class needs a"
                + " creator Jackson can use (make it a record, or give it a @JsonCreator or no-argument constructor); otherwise"
                + " check that both nodes run the same version of the class and the same serializers"
                + " (further failures in the next 10 s not logged)", e);
        }
    }

    /** A message this node could not serialize (WARN, at most once per 10 s, shared with {@link #logDeserializationFailure}). */
    void logSerializationFailure(Object what, ActorPath recipient, Throwable e) {
        if (due(lastFailureLog)) {
            LOG.log(System.Logger.Level.WARNING, "cannot serialize or deserialize "
                + (what instanceof String ? what : what.getClass().getName()) + " for " + recipient + " (further failures in the next 10 s not logged)", e);
        }
    }

    private static AtomicLong[] counters(int n) {
        final AtomicLong[] a = new AtomicLong[n];
        for (int i = 0; i < n; i++) {
            a[i] = new AtomicLong();
        }
        return a;
    }
}
