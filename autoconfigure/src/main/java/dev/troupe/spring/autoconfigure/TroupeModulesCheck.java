package dev.troupe.spring.autoconfigure;

import dev.troupe.spring.cluster.sharding.TroupeEntity;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

import java.util.Map;

/**
 * Fails startup when the application asks for a feature whose module is not on the class path,
 * naming the property or bean and the starter that brings the module: the remote transport
 * ({@code troupe.remote.enabled=true}, or a {@link TroupeConnectionDetails} bean such as
 * {@code @ServiceConnection} makes) without {@code troupe-remote}, the cluster
 * ({@code troupe.cluster.enabled=true}, {@code troupe.cluster.routers.*}, {@code @TroupeEntity} beans)
 * without {@code troupe-cluster}, and durable entities (any {@code troupe.persistence.*} key) without
 * {@code troupe-persistence} and {@code troupe-persistence-jdbc}. Their auto-configurations are
 * conditional on those classes, so without this check the request would be silently ignored. The
 * core starter leaves these modules out on purpose (no Netty in a local-only application, no JDBC in
 * one without a database): {@code troupe-spring-boot-starter-remote}, {@code -cluster} and
 * {@code -persistence} bring them.
 */
class TroupeModulesCheck implements BeanFactoryPostProcessor, EnvironmentAware, BeanClassLoaderAware, Ordered {

    static final String REMOTE_CLASS = "dev.troupe.remote.RemoteTransport";
    /**
     * The transport needs Netty beside {@code troupe-remote}'s classes: {@code troupe-persistence}
     * brings those classes for their serializers, without Netty.
     */
    static final String NETTY_CLASS = "io.netty.channel.Channel";
    static final String CLUSTER_CLASS = "dev.troupe.cluster.Receptionist";
    static final String PERSISTENCE_CLASS = "dev.troupe.persistence.Persistence";
    static final String JDBC_STORE_CLASS = "dev.troupe.persistence.jdbc.JdbcStore";
    static final String REMOTE_STARTER = "dev.troupe:troupe-spring-boot-starter-remote";
    static final String CLUSTER_STARTER = "dev.troupe:troupe-spring-boot-starter-cluster";
    static final String PERSISTENCE_STARTER = "dev.troupe:troupe-spring-boot-starter-persistence";

    private Environment environment;
    private ClassLoader classLoader = TroupeModulesCheck.class.getClassLoader();

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1; // right after the unknown-key check
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        final boolean remote = ClassUtils.isPresent(REMOTE_CLASS, classLoader) && ClassUtils.isPresent(NETTY_CLASS, classLoader);
        final boolean cluster = ClassUtils.isPresent(CLUSTER_CLASS, classLoader);
        if (!remote) {
            if (environment.getProperty("troupe.remote.enabled", Boolean.class, false)) {
                throw new InvalidTroupePropertyException("troupe.remote.enabled",
                    "is true, but the remote transport (troupe-remote with Netty) is not on the class path",
                    "Depend on " + REMOTE_STARTER + " (or " + CLUSTER_STARTER + ") instead of dev.troupe:troupe-spring-boot-starter,"
                        + " or remove troupe.remote.enabled.");
            }
            final String[] connections = beanFactory.getBeanNamesForType(TroupeConnectionDetails.class, true, false);
            if (connections.length > 0 && environment.getProperty("troupe.remote.enabled", Boolean.class, true)) {
                throw new TroupeConfigurationException("The bean '" + connections[0] + "' (TroupeConnectionDetails, such as"
                    + " @ServiceConnection makes for a TroupeNodeContainer) connects to another node, but the remote transport"
                    + " (troupe-remote) is not on the class path.",
                    "Depend on " + REMOTE_STARTER + " instead of dev.troupe:troupe-spring-boot-starter.");
            }
        }
        if (!cluster) {
            if (environment.getProperty("troupe.cluster.enabled", Boolean.class, false)) {
                throw new InvalidTroupePropertyException("troupe.cluster.enabled",
                    "is true, but the cluster (troupe-cluster) is not on the class path",
                    "Depend on " + CLUSTER_STARTER + " instead of dev.troupe:troupe-spring-boot-starter, or remove troupe.cluster.enabled.");
            }
            final Map<String, Object> routers = Binder.get(environment)
                .bind("troupe.cluster.routers", Bindable.mapOf(String.class, Object.class)).orElse(Map.of());
            if (!routers.isEmpty()) {
                final String name = routers.keySet().iterator().next();
                throw new InvalidTroupePropertyException("troupe.cluster.routers." + name + ".service-key",
                    "declares a group router, but the cluster (troupe-cluster, whose receptionist it routes over) is not on the class path",
                    "Depend on " + CLUSTER_STARTER + " instead of dev.troupe:troupe-spring-boot-starter, or remove troupe.cluster.routers."
                        + name + ".");
            }
            checkEntityBeans(beanFactory);
        }
        checkPersistence();
    }

    /**
     * A {@code troupe.persistence.*} key without the modules it configures. With {@code troupe-persistence}
     * alone (a store of the application's own) only the {@code troupe.persistence.jdbc.*} keys need
     * more; {@code troupe.persistence.enabled=false} needs nothing.
     */
    private void checkPersistence() {
        final boolean persistence = ClassUtils.isPresent(PERSISTENCE_CLASS, classLoader);
        if (persistence && ClassUtils.isPresent(JDBC_STORE_CLASS, classLoader)) {
            return;
        }
        final ConfigurationPropertyName prefix = ConfigurationPropertyName.of(persistence ? "troupe.persistence.jdbc" : "troupe.persistence");
        final ConfigurationPropertyName enabled = ConfigurationPropertyName.of("troupe.persistence.enabled");
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            final ConfigurationPropertyName key = iterable.stream()
                .filter(name -> prefix.isAncestorOf(name) && !(name.equals(enabled)
                    && "false".equalsIgnoreCase(String.valueOf(source.getConfigurationProperty(name).getValue()).trim())))
                .findFirst().orElse(null);
            if (key != null) {
                final String missing = persistence ? "the JDBC store (troupe-persistence-jdbc) is" : "durable entities' modules (troupe-persistence,"
                    + " troupe-persistence-jdbc) are";
                throw new InvalidTroupePropertyException(key.toString(), "is set, but " + missing + " not on the class path",
                    "Depend on " + PERSISTENCE_STARTER + " beside the starter the application uses, or remove the troupe.persistence.* keys.");
            }
        }
    }

    private static void checkEntityBeans(ConfigurableListableBeanFactory beanFactory) {
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            final BeanDefinition definition = beanFactory.getBeanDefinition(beanName);
            if (definition instanceof AnnotatedBeanDefinition annotated) {
                final MethodMetadata method = annotated.getFactoryMethodMetadata();
                if (method != null && method.isAnnotated(TroupeEntity.class.getName())) {
                    throw new TroupeConfigurationException("@TroupeEntity bean '" + beanName + "' ("
                        + AnnotatedBeanMethods.origin(TroupeEntity.class, method) + ") is a sharded entity, but the cluster"
                        + " (troupe-cluster) is not on the class path, so it would be silently ignored.",
                        "Depend on " + CLUSTER_STARTER + " instead of dev.troupe:troupe-spring-boot-starter.");
                }
            }
        }
    }
}
