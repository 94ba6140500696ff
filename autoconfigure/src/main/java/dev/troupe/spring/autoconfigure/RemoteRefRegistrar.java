package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.remote.RemoteTransport;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanDefinitionStoreException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Map;

/**
 * Registers an {@code ActorRef<MessageType>} bean for every {@code troupe.remote.refs.<name>}:
 * named {@code <name>}, injectable by its generic type and by {@code @Qualifier("<name>")},
 * resolved through the transport when first injected. Invalid entries are reported by
 * {@link TroupeRemoteProperties#problems()} when the properties bind.
 */
public class RemoteRefRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        final TroupeRemoteProperties properties = Binder.get(environment)
            .bind("troupe.remote", TroupeRemoteProperties.class).orElseGet(TroupeRemoteProperties::new);
        final BeanFactory beanFactory = (BeanFactory) registry;
        for (Map.Entry<String, TroupeRemoteProperties.Ref> e : properties.getRefs().entrySet()) {
            final String name = e.getKey();
            final TroupeRemoteProperties.Ref ref = e.getValue();
            final String peerAddress = ref.getPeer() == null ? null : properties.getPeers().get(ref.getPeer());
            if (peerAddress == null || ref.getPath() == null || ref.getMessageType() == null) {
                continue; // the properties' own validation fails startup with the property's name
            }
            if (registry.containsBeanDefinition(name)) {
                throw new BeanDefinitionStoreException("troupe.remote.refs." + name
                    + ": a bean named '" + name + "' already exists; give the remote ref another name");
            }
            final Class<?> type = ref.getMessageType();
            final RootBeanDefinition definition = new RootBeanDefinition(ActorRef.class);
            definition.setTargetType(ResolvableType.forClassWithGenerics(ActorRef.class, type));
            definition.setInstanceSupplier(() -> remoteRef(beanFactory.getBean(RemoteTransport.class), name, ref.actorPath(peerAddress), type));
            definition.setDescription("remote ActorRef troupe.remote.refs." + name + " -> " + peerAddress + ref.getPath());
            registry.registerBeanDefinition(name, definition);
        }
    }

    /**
     * Resolves a declared remote ref, failing startup where the message type is declared if some
     * message the ref accepts could not be serialized (it would otherwise only surface as
     * {@code no-serializer} dead letters at the first tell).
     */
    private static ActorRef<?> remoteRef(RemoteTransport transport, String name, ActorPath path, Class<?> type) {
        final List<Class<?>> missing = transport.settings().serializers().unserializableTypes(type);
        if (!missing.isEmpty()) {
            final StringBuilder names = new StringBuilder();
            for (Class<?> c : missing) {
                names.append(names.length() == 0 ? "" : ", ").append(c.getName());
            }
            throw new IllegalStateException("troupe.remote.refs." + name + ".message-type: no serializer handles " + names
                + "; declare a SerializerRegistry bean that covers them (for example a JacksonSerializer with these classes"
                + " on its allow-list)");
        }
        return transport.actorRef(path, type);
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // All the work happens on the registry.
    }
}
