package dev.troupe.spring.observation;

import io.micrometer.common.KeyValues;

/** The default names and tags of {@code troupe.message.send}: span {@code send <MessageType>}. */
public class DefaultTroupeSendObservationConvention implements TroupeSendObservationConvention {

    /** The one instance. */
    public static final DefaultTroupeSendObservationConvention INSTANCE = new DefaultTroupeSendObservationConvention();

    @Override
    public String getName() {
        return "troupe.message.send";
    }

    @Override
    public String getContextualName(TroupeSendContext context) {
        return "send " + Conventions.simpleName(context.getMessage());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(TroupeSendContext context) {
        return KeyValues.of(Conventions.system(context.getSystemName()), Conventions.messageType(context.getMessage()),
            context.isRemote() ? Conventions.REMOTE : Conventions.LOCAL);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(TroupeSendContext context) {
        return KeyValues.of(Conventions.path(context.getRecipient()));
    }
}
