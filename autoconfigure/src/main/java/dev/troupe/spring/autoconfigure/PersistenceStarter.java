package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.persistence.Persistence;
import dev.troupe.persistence.PersistenceSettings;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Starts persistence on the {@link ActorSystem} bean as soon as it exists, before any bean can
 * spawn an actor on it: a {@code @TroupeActor} bean, a sharded entity or the application's own code
 * that spawns an event-sourced entity finds the store already there. The store comes from the
 * {@link PersistenceSettings} bean (the starter's, or the application's own).
 *
 * <p>The system is made to depend on the settings bean, so the context destroys the system (after
 * its lifecycle drained it) before the store and its {@code DataSource}. If the store cannot start
 * (the database is down, a table is missing) the system is terminated before the failure
 * propagates: its threads must not keep a JVM whose application failed to start alive.
 */
final class PersistenceStarter implements BeanPostProcessor, BeanFactoryAware, Ordered {

    private ConfigurableListableBeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof ActorSystem system) {
            final String[] names = beanFactory.getBeanNamesForType(PersistenceSettings.class, false, false);
            if (names.length == 1) {
                try {
                    final PersistenceSettings settings = beanFactory.getBean(names[0], PersistenceSettings.class);
                    Persistence.start(system, settings);
                    beanFactory.registerDependentBean(names[0], beanName);
                } catch (RuntimeException e) {
                    terminate(system);
                    throw e;
                }
            }
        }
        return bean;
    }

    private static void terminate(ActorSystem system) {
        try {
            system.terminate().toCompletableFuture().get(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception stillFailing) {
            // the startup failure is what the report shows
        }
    }
}
