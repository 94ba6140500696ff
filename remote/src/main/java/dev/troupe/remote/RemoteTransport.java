package dev.troupe.remote;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.remote.internal.JvmAccess;
import dev.troupe.remote.internal.TransportCore;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Connects an {@link ActorSystem} to other nodes over TCP. Start one per system:
 *
 * <pre>{@code
 * RemoteTransport remote = RemoteTransport.start(system, RemoteSettings.builder()
 *     .bindPort(25520)
 *     .secret(System.getenv("TROUPE_SECRET"))
 *     .build());
 * ActorRef<Greeting> greeter = remote.actorRef("troupe://shop@10.0.0.7:25520/user/greeter", Greeting.class);
 * greeter.tell(new Greeting("hi", self));
 * }</pre>
 *
 * <p>Refs obtained here follow their address: they keep working when the node restarts. Refs that
 * arrive inside messages are bound to the sending node's incarnation. Local refs placed inside
 * messages to other nodes become remote refs there automatically, and replies come back.
 *
 * <p>Thread-safe. The transport closes itself when the system terminates; {@link #shutdown}
 * closes it gracefully earlier.
 */
public final class RemoteTransport implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RemoteTransport.class.getName());

    private final ActorSystem system;
    private final RemoteSettings settings;
    private final TransportCore core;

    private RemoteTransport(ActorSystem system, RemoteSettings settings) {
        this.system = system;
        this.settings = settings;
        this.core = new TransportCore(system, settings);
        system.registerOnTermination(() -> core.shutdown(Duration.ZERO));
    }

    /**
     * Binds the server socket and starts the I/O threads. First checks that the JVM gives the
     * transport's buffers the access they need ({@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED}):
     * without it nothing is bound or started.
     *
     * @param system the local actor system
     * @param settings validated settings
     * @return the running transport
     * @throws MissingJvmOptionException if the JVM was started without the option; its message says how to set it
     * @throws IllegalStateException naming {@code troupe.remote.bind-host/bind-port} if it cannot listen
     */
    public static RemoteTransport start(ActorSystem system, RemoteSettings settings) {
        Objects.requireNonNull(system, "system");
        Objects.requireNonNull(settings, "settings");
        JvmAccess.check();
        return new RemoteTransport(system, settings);
    }

    /** @return this node's address, {@code troupe://system@host:port/} */
    public ActorPath address() {
        return core.address();
    }

    /**
     * @param path {@code troupe://system@host:port/user/...}
     * @param messageType the messages the actor accepts; checked against the serializers
     * @param <T> the message type
     * @return a ref (a local ref if the path is on this node)
     */
    public <T> ActorRef<T> actorRef(String path, Class<T> messageType) {
        return actorRef(ActorPath.parse(path), messageType);
    }

    /**
     * @param path a path with an address
     * @param messageType the messages the actor accepts; checked against the serializers
     * @param <T> the message type
     * @return a ref that follows the address
     * @throws IllegalArgumentException if the path has no address
     */
    public <T> ActorRef<T> actorRef(ActorPath path, Class<T> messageType) {
        if (!path.hasAddress()) {
            throw new IllegalArgumentException("a remote actor path needs an address (troupe://system@host:port/...): " + path);
        }
        final List<Class<?>> missing = settings.serializers().unserializableTypes(messageType);
        if (!missing.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "remote ref " + path + " is declared for " + messageType.getName()
                + " but no serializer handles " + missing + "; such messages will go to dead letters as no-serializer");
        }
        return core.lookup(path);
    }

    /**
     * Makes a local actor addressable from other nodes, under its path
     * ({@link #addressOf(ActorRef)}), until it stops or is {@link #unpublish unpublished}. Only
     * published actors, and refs this node itself sent inside messages (reply-to refs, ask refs),
     * can be reached from other nodes; a message to any other local path goes to dead letters as
     * {@code unknown-recipient}. Every inbound message is checked against {@code messageType}
     * first: one of another class is dropped ({@code type-mismatch}) and never reaches the actor.
     *
     * <pre>{@code
     * ActorRef<Order> orders = system.spawn(OrderActor.create(), "orders");
     * remote.publish(orders, Order.class);   // troupe://shop@10.0.0.7:25520/user/orders
     * }</pre>
     *
     * @param ref a local actor
     * @param messageType the class its messages have (a sealed interface covers its subtypes)
     * @param <T> the message type
     * @return the path other nodes use for it
     * @throws IllegalArgumentException if the ref is not a local actor
     */
    public <T> ActorPath publish(ActorRef<T> ref, Class<? super T> messageType) {
        Objects.requireNonNull(messageType, "messageType");
        final List<Class<?>> missing = settings.serializers().unserializableTypes(messageType);
        if (!missing.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "actor " + ref.path() + " is published for " + messageType.getName()
                + " but no serializer handles " + missing + "; such messages cannot arrive");
        }
        core.publish(ref, messageType);
        return core.addressed(ref.path());
    }

    /**
     * Makes a published actor unreachable from other nodes again (refs it sent out stay valid).
     *
     * @param ref a ref given to {@link #publish}
     */
    public void unpublish(ActorRef<?> ref) {
        core.unpublish(ref);
    }

    /**
     * @param ref a local ref
     * @return its path with this node's address, as other nodes name it
     */
    public ActorPath addressOf(ActorRef<?> ref) {
        return core.addressed(ref.path());
    }

    /**
     * Messages this node sent that the receiving node could not deliver, as those nodes reported
     * them: unknown recipients, type mismatches, missing serializers, failed deserialization. A
     * request of an ask fails at once with {@link RemoteDeliveryException}; a plain tell stays a
     * dead letter over there and shows up here. Each node reports at most 20 a second per
     * connection.
     *
     * @return the most recent reports, oldest first, at most 32
     */
    public List<RemoteFailure> recentFailures() {
        return core.recentFailures();
    }

    /**
     * Opens an association to a node ahead of any message: connects now, and keeps reconnecting
     * with backoff as any association does, so {@link AssociationListener}s hear
     * {@link AssociationEvent.Connected} or {@link AssociationEvent.ConnectFailed}. Idempotent
     * while connected or while an attempt is under way; on an association waiting out its
     * reconnect backoff it dials now (the backoff itself goes on growing if that dial fails too). Nothing is
     * sent but the handshake and heartbeats. Within {@code maxAssociations}; beyond it
     * the call does nothing and {@code association-limit} is counted.
     *
     * @param node the node's address, {@code troupe://system@host:port/} (a path under it works too)
     * @throws IllegalArgumentException if the path has no address or is this node's own
     */
    public void connect(ActorPath node) {
        if (!Objects.requireNonNull(node, "node").hasAddress()) {
            throw new IllegalArgumentException("a node address is troupe://system@host:port/: " + node);
        }
        core.connect(node.root());
    }

    /**
     * Registers a listener for association events (connections, losses, restarts); see
     * {@link AssociationListener} for the threading contract. Events that happened before are
     * not replayed.
     *
     * @param listener the listener
     */
    public void addAssociationListener(AssociationListener listener) {
        core.addListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * @param listener a registered listener; it hears nothing more
     */
    public void removeAssociationListener(AssociationListener listener) {
        core.removeListener(listener);
    }

    /** @return metric sources, read at scrape time */
    public RemoteMetrics metrics() {
        return core.metrics();
    }

    /** @return the settings this transport runs with */
    public RemoteSettings settings() {
        return settings;
    }

    /** @return the local system */
    public ActorSystem system() {
        return system;
    }

    /** @return whether the epoll transport is in use (else NIO) */
    public boolean isNativeTransport() {
        return core.isEpoll();
    }

    /**
     * Graceful shutdown: stops accepting and closes inbound connections first, then gives each
     * outbound buffer up to {@code flushTimeout} to drain, tells peers it is closing, and stops
     * the I/O threads. Idempotent; blocks until done.
     *
     * @param flushTimeout how long to let outbound messages drain
     */
    public void shutdown(Duration flushTimeout) {
        core.shutdown(flushTimeout);
    }

    /** Same as {@code shutdown(Duration.ofSeconds(1))}. */
    @Override
    public void close() {
        shutdown(Duration.ofSeconds(1));
    }
}
