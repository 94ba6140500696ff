package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorPath;
import dev.troupe.actor.ActorRef;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Registers an {@code ActorRef<MessageType>} bean for every {@code troupe.remote.refs.<name>}:
 * named {@code <name>}, injectable by its generic type and by {@code @Qualifier("<name>")},
 * resolved through the transport when first injected. An invalid entry fails startup here,
 * before any bean is created, naming its property: a ref whose {@code peer} names no configured
 * peer would otherwise surface as a misleading missing-bean error where the ref is injected.
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
        final Map<String, String> peers = new LinkedHashMap<>(properties.getPeers());
        peers.putAll(connectedPeers(registry));
        for (Map.Entry<String, String> e : peers.entrySet()) {
            try {
                TroupeRemoteProperties.peerRoot(e.getValue());
            } catch (IllegalArgumentException ex) {
                throw new InvalidTroupePropertyException("troupe.remote.peers." + e.getKey(),
                    "expected system@host:port, was '" + e.getValue() + "' (" + ex.getMessage() + ")",
                    "Set troupe.remote.peers." + e.getKey() + " to the node's system name, host and remote port, such as"
                        + " inventory@10.0.0.7:25520.", ex);
            }
        }
        for (Map.Entry<String, TroupeRemoteProperties.Ref> e : properties.getRefs().entrySet()) {
            final String name = e.getKey();
            final TroupeRemoteProperties.Ref ref = e.getValue();
            final String prefix = "troupe.remote.refs." + name;
            final String peerAddress = checkPeer(prefix, ref.getPeer(), peers);
            if (ref.getPath() == null || !(ref.getPath().startsWith("/user/") || ref.getPath().startsWith("/system/"))) {
                throw new InvalidTroupePropertyException(prefix + ".path", "must start with /user/ or /system/, was '" + ref.getPath() + "'",
                    "Set " + prefix + ".path to the actor's path on the peer, such as /user/inventory for a @TroupeActor bean"
                        + " named inventory.");
            }
            if (ref.getMessageType() == null) {
                throw new InvalidTroupePropertyException(prefix + ".message-type", "is not set",
                    "Set " + prefix + ".message-type to the class of the messages the actor accepts (its Behavior's type"
                        + " argument), such as com.acme.Inventory$Command; the bean is an ActorRef of it.");
            }
            final Class<?> type = ref.getMessageType();
            ConfiguredRefBeans.register(registry, "remote ref", "remote ref", "troupe.remote.refs", name, type,
                () -> remoteRef(beanFactory.getBean(RemoteTransport.class), name, ref.actorPath(peerAddress), type),
                "remote ActorRef troupe.remote.refs." + name + " -> " + peerAddress + ref.getPath());
        }
    }

    /**
     * Resolves a declared remote ref, failing startup where the message type is declared if some
     * message the ref accepts could not be serialized (it would otherwise only surface as
     * {@code no-serializer} dead letters at the first tell), or could be written but not built
     * back by its serializer (a class Jackson has no creator for, which would only fail on the
     * receiving node).
     */
    private static ActorRef<?> remoteRef(RemoteTransport transport, String name, ActorPath path, Class<?> type) {
        final List<Class<?>> missing = transport.settings().serializers().unserializableTypes(type);
        if (!missing.isEmpty()) {
            final StringBuilder names = new StringBuilder();
            for (Class<?> c : missing) {
                names.append(names.length() == 0 ? "" : ", ").append(c.getName());
            }
            throw new TroupeConfigurationException("The remote ref troupe.remote.refs." + name + " sends messages of type "
                + type.getName() + " (troupe.remote.refs." + name + ".message-type), but no serializer handles " + names
                + ", so every message to it would become a 'no-serializer' dead letter.",
                "Declare a SerializerRegistry bean whose serializers cover " + names + " (for example"
                    + " JacksonSerializer.builder().allowPackage(\"" + type.getPackageName() + "\") as its fallback), and"
                    + " give the receiving node the same serializers.");
        }
        final Map<Class<?>, String> unreadable = transport.settings().serializers().unreadableTypes(type);
        if (!unreadable.isEmpty()) {
            final Map.Entry<Class<?>, String> first = unreadable.entrySet().iterator().next();
            throw new TroupeConfigurationException("The remote ref troupe.remote.refs." + name + " sends messages of type "
                + type.getName() + " (troupe.remote.refs." + name + ".message-type), but its serializer cannot build "
                + String.join(", ", unreadable.keySet().stream().map(Class::getName).toList()) + " back from the bytes it writes: "
                + first.getValue() + ". Every such message would fail on the receiving node.",
                "Make " + first.getKey().getName() + " a record, or give it a @JsonCreator or a no-argument constructor (or register"
                    + " a Serializer of your own for it in the SerializerRegistry bean).");
        }
        return transport.actorRef(path, type);
    }

    /**
     * Peers from {@link TroupeConnectionDetails} beans (a {@code @ServiceConnection} container):
     * created here, before the other beans, as their names are needed to check the refs.
     */
    private static Map<String, String> connectedPeers(BeanDefinitionRegistry registry) {
        final Map<String, String> peers = new LinkedHashMap<>();
        if (registry instanceof ListableBeanFactory beans) {
            for (String name : beans.getBeanNamesForType(TroupeConnectionDetails.class, true, false)) {
                final TroupeConnectionDetails details = beans.getBean(name, TroupeConnectionDetails.class);
                peers.put(details.peerName(), details.address());
            }
        }
        return peers;
    }

    /** @return the peer's address; a ref naming no configured peer fails startup naming the property and the peers */
    private static String checkPeer(String prefix, String peer, Map<String, String> peers) {
        final String address = peer == null ? null : peers.get(peer);
        if (address != null) {
            return address;
        }
        final String names = String.join(", ", new TreeSet<>(peers.keySet()));
        final String known = peers.isEmpty() ? "no peer is configured (troupe.remote.peers.* is empty)"
            : "the configured peers are " + names;
        throw new InvalidTroupePropertyException(prefix + ".peer",
            (peer == null ? "is not set" : "names the peer '" + peer + "', which is not configured") + "; " + known,
            peers.isEmpty()
                ? "Declare the node as troupe.remote.peers.<name>=system@host:port and set " + prefix + ".peer to that name."
                : "Set " + prefix + ".peer to one of " + names
                    + ", or declare troupe.remote.peers." + (peer == null ? "<name>" : peer) + "=system@host:port.");
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // All the work happens on the registry.
    }
}
