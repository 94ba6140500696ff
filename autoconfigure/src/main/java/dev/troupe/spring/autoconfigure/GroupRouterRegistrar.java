package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.cluster.GroupRouter;
import dev.troupe.cluster.Routers;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.Map;

/**
 * Registers an {@code ActorRef<MessageType>} bean for every {@code troupe.cluster.routers.<name>}:
 * a group router ({@link Routers#group}) over the receptionist's listing of
 * {@code ServiceKey.create(message-type, service-key)}, spawned as the top-level actor
 * {@code <name>} when first injected, named {@code <name>} and injectable by its generic type
 * (and {@code @Qualifier("<name>")}). Cluster-wide once the cluster runs, this node's own
 * registrations otherwise. An invalid entry fails startup here, naming its property.
 */
class GroupRouterRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        final TroupeClusterProperties properties = Binder.get(environment)
            .bind("troupe.cluster", TroupeClusterProperties.class).orElseGet(TroupeClusterProperties::new);
        final BeanFactory beanFactory = (BeanFactory) registry;
        for (Map.Entry<String, TroupeClusterProperties.Router> e : properties.getRouters().entrySet()) {
            final String name = e.getKey();
            final TroupeClusterProperties.Router router = e.getValue();
            final String prefix = "troupe.cluster.routers." + name;
            if (router.getServiceKey() == null || router.getServiceKey().isBlank()) {
                throw new InvalidTroupePropertyException(prefix + ".service-key", "is not set",
                    "Set " + prefix + ".service-key to the id the routees are registered under, such as the"
                        + " @TroupeActor(serviceKey = \"inventory\") of the worker beans.");
            }
            if (router.getMessageType() == null) {
                throw new InvalidTroupePropertyException(prefix + ".message-type", "is not set",
                    "Set " + prefix + ".message-type to the class of the messages the routees accept (their Behavior's type"
                        + " argument); the router bean is an ActorRef of it.");
            }
            final ServiceKey<?> key;
            try {
                key = ServiceKey.create(router.getMessageType(), router.getServiceKey());
            } catch (IllegalArgumentException ex) {
                throw new InvalidTroupePropertyException(prefix + ".service-key", ex.getMessage(), null, ex);
            }
            if (router.getStashCapacity() < 0) {
                throw new InvalidTroupePropertyException(prefix + ".stash-capacity", "must not be negative: " + router.getStashCapacity(), null);
            }
            try {
                ActorPath.root("check").child(name);
            } catch (IllegalArgumentException ex) {
                throw new InvalidTroupePropertyException(prefix, "the router's name is not a valid actor name: " + ex.getMessage(),
                    "Name the router under troupe.cluster.routers with letters, digits, '-' and '_'.", ex);
            }
            ConfiguredRefBeans.register(registry, "group router", "router", "troupe.cluster.routers", name, router.getMessageType(),
                () -> spawn(beanFactory.getBean(ActorSystem.class), name, key, router),
                "group router troupe.cluster.routers." + name + " over " + key);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ActorRef<?> spawn(ActorSystem system, String name, ServiceKey key, TroupeClusterProperties.Router router) {
        GroupRouter<?> behavior = Routers.group(key).withStashCapacity(router.getStashCapacity());
        if (router.getRouting() == TroupeClusterProperties.Routing.RANDOM) {
            behavior = behavior.withRandomRouting();
        }
        return system.spawn((GroupRouter) behavior, name);
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // All the work happens on the registry.
    }
}
