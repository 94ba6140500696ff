package dev.troupe.spring.observation;

import dev.troupe.spring.observation.TroupeObservationDocumentation.LowCardinalityKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/** The default names and tags of {@code troupe.message.process}: span {@code process <MessageType>}. */
public class DefaultTroupeProcessObservationConvention implements TroupeProcessObservationConvention {

    /** The one instance. */
    public static final DefaultTroupeProcessObservationConvention INSTANCE = new DefaultTroupeProcessObservationConvention();

    @Override
    public String getName() {
        return "troupe.message.process";
    }

    @Override
    public String getContextualName(TroupeProcessContext context) {
        return "process " + Conventions.simpleName(context.getMessage());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(TroupeProcessContext context) {
        return KeyValues.of(Conventions.system(context.getSystemName()), KeyValue.of(LowCardinalityKeys.ACTOR_CLASS, String.valueOf(context.getBehaviorClass())),
            Conventions.messageType(context.getMessage()), context.isRemote() ? Conventions.REMOTE : Conventions.LOCAL);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(TroupeProcessContext context) {
        return KeyValues.of(Conventions.path(context.getActor()));
    }
}
