package dev.troupe.spring;

import dev.troupe.actor.ActorSystemSettings;

/**
 * Changes the actor system's settings after the {@code troupe.*} properties have been
 * applied and before the system starts. Every customizer bean is applied, in
 * {@link org.springframework.core.annotation.Order @Order} /
 * {@link org.springframework.core.Ordered Ordered} order.
 */
@FunctionalInterface
public interface ActorSystemCustomizer {

    /**
     * @param settings the settings built from the properties so far
     */
    void customize(ActorSystemSettings.Builder settings);
}
