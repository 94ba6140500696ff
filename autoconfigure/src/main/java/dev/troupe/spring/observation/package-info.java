/**
 * Micrometer Observation support of Troupe's messages: {@link dev.troupe.spring.observation.ObservationMessageInstrumentation}
 * (installed by {@code troupe.observations.enabled=true}), the observations it makes
 * ({@link dev.troupe.spring.observation.TroupeObservationDocumentation}), their contexts and their conventions.
 */
package dev.troupe.spring.observation;
