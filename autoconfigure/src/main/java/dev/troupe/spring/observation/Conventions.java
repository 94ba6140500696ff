package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import dev.troupe.spring.observation.TroupeObservationDocumentation.HighCardinalityKeys;
import dev.troupe.spring.observation.TroupeObservationDocumentation.LowCardinalityKeys;
import io.micrometer.common.KeyValue;

/** Shared bits of the default conventions. */
final class Conventions {

    static final KeyValue LOCAL = KeyValue.of(LowCardinalityKeys.REMOTE, "false");
    static final KeyValue REMOTE = KeyValue.of(LowCardinalityKeys.REMOTE, "true");

    private Conventions() {
    }

    static KeyValue system(String systemName) {
        return KeyValue.of(LowCardinalityKeys.SYSTEM, systemName == null ? "none" : systemName);
    }

    static KeyValue messageType(Object message) {
        return KeyValue.of(LowCardinalityKeys.MESSAGE_TYPE, message == null ? "none" : message.getClass().getName());
    }

    static KeyValue path(ActorRef<?> ref) {
        return KeyValue.of(HighCardinalityKeys.ACTOR_PATH, ref == null ? "none" : ref.path().toString());
    }

    static String simpleName(Object message) {
        return message == null ? "message" : message.getClass().getSimpleName();
    }
}
