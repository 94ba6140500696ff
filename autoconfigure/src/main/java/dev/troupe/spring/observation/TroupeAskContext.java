package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import io.micrometer.observation.Observation;

/** The context of a {@code troupe.ask} observation, from the request to the reply or failure. */
public class TroupeAskContext extends Observation.Context {

    private final String systemName;
    private final ActorRef<?> target;
    private final Object request;

    /**
     * @param systemName the name of the asking actor system
     * @param target the actor asked
     * @param request the request
     */
    public TroupeAskContext(String systemName, ActorRef<?> target, Object request) {
        this.systemName = systemName;
        this.target = target;
        this.request = request;
    }

    /** @return the name of the asking actor system (the {@code system} tag of Troupe's meters) */
    public String getSystemName() {
        return systemName;
    }

    /** @return the actor asked */
    public ActorRef<?> getTarget() {
        return target;
    }

    /** @return the request */
    public Object getRequest() {
        return request;
    }

    /** @return whether the actor asked is on another node */
    public boolean isRemote() {
        return target instanceof dev.troupe.actor.spi.InternalActorRef && !((dev.troupe.actor.spi.InternalActorRef<?>) target).isLocal();
    }
}
