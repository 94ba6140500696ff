package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.InvalidSettingException;
import dev.troupe.spring.ActorSystemCustomizer;
import dev.troupe.spring.ActorSystemLifecycle;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import java.time.Duration;

/**
 * The actor system: an {@link ActorSystem} bean configured from {@code troupe.*} and the
 * {@link ActorSystemCustomizer} beans, a lifecycle that shuts it down gracefully with the
 * context, and the registrar that spawns {@code @TroupeActor} beans. Every bean backs off
 * when the application defines its own.
 *
 * <p>The remote transport's auto-configuration goes after this one and adds to it.
 */
@AutoConfiguration
@ConditionalOnClass(ActorSystem.class)
@ConditionalOnBooleanProperty(name = "troupe.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TroupeProperties.class)
public class TroupeAutoConfiguration {

    /** Spring Boot's own default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
    static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

    @Bean
    @ConditionalOnMissingBean
    ActorSystemSettings troupeActorSystemSettings(TroupeProperties properties, ObjectProvider<ActorSystemCustomizer> customizers) {
        final ActorSystemSettings.Builder builder = properties.toSettingsBuilder();
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean(destroyMethod = "terminate")
    @ConditionalOnMissingBean
    ActorSystem troupeActorSystem(TroupeProperties properties, ActorSystemSettings settings) {
        try {
            return ActorSystem.create(properties.getSystemName(), settings);
        } catch (InvalidSettingException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            if (String.valueOf(e.getMessage()).contains("system name")) {
                throw new InvalidTroupePropertyException("troupe.system-name", e.getMessage(),
                    "Set troupe.system-name to a name of letters, digits, '-' and '_' (it appears in actor paths).", e);
            }
            throw e;
        }
    }

    @Bean
    @ConditionalOnMissingBean
    ActorSystemLifecycle troupeActorSystemLifecycle(ActorSystem system, TroupeProperties properties, Environment environment) {
        final Duration drain = properties.getShutdown().getTimeout();
        final Duration phase = Binder.get(environment)
            .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
            .orElse(DEFAULT_PHASE_TIMEOUT);
        if (drain.compareTo(phase) >= 0) {
            throw new InvalidTroupePropertyException("troupe.shutdown.timeout", "the drain timeout (" + drain
                + ") must be shorter than spring.lifecycle.timeout-per-shutdown-phase (" + phase
                + "): the actors must finish draining and stop within the shutdown phase", null);
        }
        return new ActorSystemLifecycle(system, drain);
    }

    @Bean
    @ConditionalOnMissingBean
    static ActorBeanRegistrar troupeActorBeanRegistrar() {
        return new ActorBeanRegistrar();
    }

    @Bean
    static UnknownTroupePropertiesCheck troupeUnknownPropertiesCheck() {
        return new UnknownTroupePropertiesCheck();
    }

    /** A feature asked for without its module (troupe.remote.enabled without troupe-remote, ...) fails startup. */
    @Bean
    static TroupeModulesCheck troupeModulesCheck() {
        return new TroupeModulesCheck();
    }
}
