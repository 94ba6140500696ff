package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The context of a {@code troupe.message.process} observation: a consumer whose carrier is the
 * message's {@link MessageContext}, from which a tracer extracts the sender's span (written by the
 * local send, or received from another node).
 */
public class TroupeProcessContext extends ReceiverContext<MessageContext> {

    private final String systemName;
    private final ActorRef<?> actor;
    private final String behaviorClass;
    private final Object message;
    private final boolean remote;

    /**
     * @param systemName the name of the processing actor's system
     * @param carrier the message's context
     * @param actor the actor processing the message
     * @param behaviorClass the name of the class that defined the actor's behavior
     * @param message the message
     * @param remote whether the message came from another node
     */
    public TroupeProcessContext(String systemName, MessageContext carrier, ActorRef<?> actor, String behaviorClass, Object message,
                                boolean remote) {
        super(MessageContext::get, Kind.CONSUMER);
        setCarrier(carrier);
        this.systemName = systemName;
        this.actor = actor;
        this.behaviorClass = behaviorClass;
        this.message = message;
        this.remote = remote;
    }

    /** @return the name of the processing actor's system (the {@code system} tag of Troupe's meters) */
    public String getSystemName() {
        return systemName;
    }

    /** @return the actor processing the message */
    public ActorRef<?> getActor() {
        return actor;
    }

    /** @return the name of the class that defined the actor's behavior */
    public String getBehaviorClass() {
        return behaviorClass;
    }

    /** @return the message */
    public Object getMessage() {
        return message;
    }

    /** @return whether the message came from another node */
    public boolean isRemote() {
        return remote;
    }
}
