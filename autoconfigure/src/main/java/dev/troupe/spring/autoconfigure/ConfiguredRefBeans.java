package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;

import java.util.function.Supplier;

/**
 * The {@code ActorRef<MessageType>} bean that a {@code troupe.*.<name>} entry declares (a group
 * router, a remote ref): named {@code <name>}, typed by its message type so it is injectable by its
 * generic type, created when first injected, and marked to be registered again at every start from
 * the environment ({@link ActorBeanRegistrar#REGISTERED_AT_STARTUP_ATTRIBUTE}). Runs at startup.
 */
final class ConfiguredRefBeans {

    private ConfiguredRefBeans() {
    }

    /**
     * @param registry the registry
     * @param kind what the entry declares, for the failure's description ({@code "group router"})
     * @param shortKind the same, for the failure's action ({@code "router"})
     * @param propertyPrefix the map property of the entries ({@code troupe.cluster.routers})
     * @param name the entry's name, the bean's name
     * @param messageType the ref's message type
     * @param instanceSupplier creates the ref
     * @param description the bean definition's description
     * @throws TroupeConfigurationException if a bean already has the name
     */
    static void register(BeanDefinitionRegistry registry, String kind, String shortKind, String propertyPrefix, String name,
                         Class<?> messageType, Supplier<ActorRef<?>> instanceSupplier, String description) {
        if (registry.containsBeanDefinition(name)) {
            throw new TroupeConfigurationException("The " + kind + " " + propertyPrefix + "." + name
                + " needs the bean name '" + name + "', but a bean named '" + name + "' already exists.",
                "Give the " + shortKind + " another name under " + propertyPrefix + ", or rename the other bean.");
        }
        final RootBeanDefinition definition = new RootBeanDefinition(ActorRef.class);
        definition.setTargetType(ResolvableType.forClassWithGenerics(ActorRef.class, messageType));
        definition.setInstanceSupplier(instanceSupplier);
        definition.setDescription(description);
        // Boot's reports (two candidates for one injection point, a failed creation) say where the bean came from
        definition.setResourceDescription("property " + propertyPrefix + "." + name);
        definition.setAttribute(ActorBeanRegistrar.REGISTERED_AT_STARTUP_ATTRIBUTE, Boolean.TRUE);
        registry.registerBeanDefinition(name, definition);
    }
}
