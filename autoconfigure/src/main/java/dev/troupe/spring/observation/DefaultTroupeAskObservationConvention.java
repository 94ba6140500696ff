package dev.troupe.spring.observation;

import io.micrometer.common.KeyValues;

/** The default names and tags of {@code troupe.ask}: span {@code ask <RequestType>}. */
public class DefaultTroupeAskObservationConvention implements TroupeAskObservationConvention {

    /** The one instance. */
    public static final DefaultTroupeAskObservationConvention INSTANCE = new DefaultTroupeAskObservationConvention();

    @Override
    public String getName() {
        return "troupe.ask";
    }

    @Override
    public String getContextualName(TroupeAskContext context) {
        return "ask " + Conventions.simpleName(context.getRequest());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(TroupeAskContext context) {
        return KeyValues.of(Conventions.system(context.getSystemName()), Conventions.messageType(context.getRequest()),
            context.isRemote() ? Conventions.REMOTE : Conventions.LOCAL);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(TroupeAskContext context) {
        return KeyValues.of(Conventions.path(context.getTarget()));
    }
}
