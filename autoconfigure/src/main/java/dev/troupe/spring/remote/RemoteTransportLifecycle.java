package dev.troupe.spring.remote;

import dev.troupe.remote.RemoteTransport;
import dev.troupe.spring.ActorSystemLifecycle;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;

/**
 * Closes the transport once the actor system has drained. While the system drains, messages
 * arriving from other nodes are outside messages and become dead letters as
 * {@code shutdown}, and replies the draining actors send still go out; then the transport
 * flushes its outbound buffers for up to the flush timeout and closes.
 */
public class RemoteTransportLifecycle implements SmartLifecycle {

    private final RemoteTransport transport;
    private final Duration flushTimeout;
    private volatile boolean running;

    /**
     * @param transport the transport
     * @param flushTimeout how long outbound buffers may drain
     */
    public RemoteTransportLifecycle(RemoteTransport transport, Duration flushTimeout) {
        this.transport = transport;
        this.flushTimeout = flushTimeout;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        transport.shutdown(flushTimeout);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** @return one below the actor system's phase: stops after it */
    @Override
    public int getPhase() {
        return ActorSystemLifecycle.PHASE - 1;
    }
}
