package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;

/**
 * The context of a {@code troupe.message.send} observation: a producer whose carrier is the
 * message's {@link MessageContext}, into which a tracer injects its propagation headers (sent to
 * another node in the USER frame's header block, or read back by the local processing).
 */
public class TroupeSendContext extends SenderContext<MessageContext> {

    private final String systemName;
    private final ActorRef<?> recipient;
    private final Object message;
    private final boolean remote;

    /**
     * @param systemName the name of the sending actor system
     * @param carrier the message's context
     * @param recipient the recipient
     * @param message the message
     * @param remote whether the recipient is on another node
     */
    public TroupeSendContext(String systemName, MessageContext carrier, ActorRef<?> recipient, Object message, boolean remote) {
        super(MessageContext::put, Kind.PRODUCER);
        setCarrier(carrier);
        this.systemName = systemName;
        this.recipient = recipient;
        this.message = message;
        this.remote = remote;
    }

    /** @return the name of the sending actor system (the {@code system} tag of Troupe's meters) */
    public String getSystemName() {
        return systemName;
    }

    /** @return the recipient */
    public ActorRef<?> getRecipient() {
        return recipient;
    }

    /** @return the message */
    public Object getMessage() {
        return message;
    }

    /** @return whether the recipient is on another node */
    public boolean isRemote() {
        return remote;
    }
}
