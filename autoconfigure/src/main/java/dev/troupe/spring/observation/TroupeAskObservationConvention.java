package dev.troupe.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of the {@link TroupeObservationDocumentation} observations of a
 * {@link TroupeAskContext}: implement it (as a bean, or as a {@code GlobalObservationConvention})
 * to change them; {@link DefaultTroupeAskObservationConvention} is the default.
 */
public interface TroupeAskObservationConvention extends ObservationConvention<TroupeAskContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof TroupeAskContext;
    }
}
