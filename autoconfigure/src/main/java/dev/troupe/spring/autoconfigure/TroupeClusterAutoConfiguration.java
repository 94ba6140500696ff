package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.cluster.Cluster;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.DowningStrategy;
import dev.troupe.cluster.spi.ClusterTransport;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.RemoteClusterTransport;
import dev.troupe.cluster.ServiceKey;
import dev.troupe.cluster.discovery.DnsDiscovery;
import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.discovery.MemberDiscovery;
import dev.troupe.cluster.discovery.StaticDiscovery;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.cluster.ClusterLifecycle;
import dev.troupe.spring.cluster.TroupeClusterHealthIndicator;
import dev.troupe.spring.cluster.TroupeClusterMembers;
import dev.troupe.spring.cluster.TroupeClusterMetrics;
import dev.troupe.spring.cluster.sharding.TroupeShardingMetrics;
import dev.troupe.spring.cluster.sharding.TroupeShardingReport;
import dev.troupe.cluster.sharding.ClusterSharding;
import dev.troupe.cluster.sharding.ShardingMetrics;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import dev.troupe.spring.health.TroupeReadinessGroups;
import dev.troupe.spring.metrics.TroupeMetrics;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import java.util.Locale;

/**
 * The receptionist, group routers from {@code troupe.cluster.routers.*} and the registration of
 * {@code @TroupeActor(serviceKey)} beans, whenever {@code troupe-cluster} is on the class path;
 * and, with {@code troupe.cluster.enabled=true} (which needs {@code troupe.remote.enabled=true}),
 * cluster membership over the remote transport: a {@link Cluster} bean found through
 * {@code troupe.cluster.discovery} ({@code static}, {@code dns} or {@code spring-cloud}), a
 * lifecycle that leaves gracefully before the transport stops, the {@code troupe.cluster.*}
 * meters, the {@code troupeCluster} health indicator in the readiness group, and the
 * {@code cluster} section of the {@code troupe} endpoint. Every bean backs off to the
 * application's own.
 */
@AutoConfiguration(after = {TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class, TroupeHealthAutoConfiguration.class},
    beforeName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration")
@ConditionalOnClass({Receptionist.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
@EnableConfigurationProperties(TroupeClusterProperties.class)
public class TroupeClusterAutoConfiguration {

    /** The class a Spring Cloud discovery needs. */
    static final String DISCOVERY_CLIENT = "org.springframework.cloud.client.discovery.DiscoveryClient";

    /** Lazy: an application that never uses the receptionist gets no receptionist actor. */
    @Bean
    @Lazy
    @ConditionalOnMissingBean
    Receptionist troupeReceptionist(ActorSystem system) {
        return Receptionist.get(system);
    }

    @Bean
    @ConditionalOnMissingBean
    static GroupRouterRegistrar troupeGroupRouterRegistrar() {
        return new GroupRouterRegistrar();
    }

    /** Turns {@code @TroupeEntity} beans into {@code EntityRefFactory} beans (sharding must run for them: see {@link Membership.Sharding}). */
    @Bean
    @ConditionalOnMissingBean
    static EntityBeanRegistrar troupeEntityBeanRegistrar() {
        return new EntityBeanRegistrar();
    }

    /** Registers every (non-lazy) {@code @TroupeActor(serviceKey)} bean actor with the receptionist. */
    @Bean
    static SmartInitializingSingleton troupeServiceKeyRegistrations(ConfigurableListableBeanFactory beanFactory) {
        return () -> {
            for (String name : beanFactory.getBeanNamesForType(ActorRef.class, true, false)) {
                final BeanDefinition definition = beanFactory.getMergedBeanDefinition(name);
                if (definition.getAttribute(ActorBeanRegistrar.SERVICE_KEY_ATTRIBUTE) instanceof String id
                    && definition.getAttribute(ActorBeanRegistrar.MESSAGE_CLASS_ATTRIBUTE) instanceof Class<?> type
                    && !definition.isLazyInit()) {
                    final Receptionist receptionist = beanFactory.getBeanProvider(Receptionist.class).getIfAvailable();
                    if (receptionist != null) {
                        register(receptionist, ServiceKey.create(type, id), beanFactory.getBean(name, ActorRef.class));
                    }
                }
            }
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void register(Receptionist receptionist, ServiceKey key, ActorRef ref) {
        receptionist.register(key, ref);
    }

    /** Membership over the remote transport. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RemoteTransport.class)
    @ConditionalOnBooleanProperty(name = "troupe.cluster.enabled")
    static class Membership {

        /**
         * The cluster's and sharding's serializers, when the application declares no registry of
         * its own (one that it declares must include them: {@link #troupeClusterTransport} and
         * {@link Sharding#troupeClusterSharding} check).
         */
        @Bean
        @ConditionalOnMissingBean
        SerializerRegistry troupeClusterSerializers(ObjectProvider<TroupeRemoteProperties> remoteProperties, ApplicationContext context) {
            return ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer(
                DefaultSerializers.builder(remoteProperties.getIfAvailable(), context.getClassLoader()))).build();
        }

        @Bean
        @ConditionalOnMissingBean
        MemberDiscovery troupeMemberDiscovery(TroupeClusterProperties p, ObjectProvider<RemoteTransport> remote,
                                              ListableBeanFactory beanFactory, Environment environment) {
            requireRemote(remote);
            return switch (p.getDiscovery()) {
                case STATIC -> staticDiscovery(p, remote);
                case DNS -> dnsDiscovery(p, remote);
                case SPRING_CLOUD -> springCloudDiscovery(p, beanFactory, environment);
            };
        }

        @Bean
        @ConditionalOnMissingBean
        ClusterSettings troupeClusterSettings(TroupeClusterProperties p, MemberDiscovery discovery, Environment environment) {
            final String version = p.getAppVersion() != null ? p.getAppVersion()
                : environment.getProperty("spring.application.version", "");
            return ClusterSettings.builder()
                .discovery(discovery)
                .discoveryInterval(p.getDiscoveryInterval())
                .roles(p.getRoles())
                .appVersion(version)
                .downAfter(p.getDownAfter())
                .downing(DowningStrategy.valueOf(p.getDowning().name()))
                .stableAfter(p.getStableAfter())
                .quorumSize(p.getQuorumSize())
                .joinTimeout(p.getJoinTimeout())
                .leaveTimeout(p.getLeaveTimeout())
                .maxMembers(p.getMaxMembers())
                .maxReceptionistEntriesPerMember(p.getMaxReceptionistEntriesPerMember())
                .build();
        }

        @Bean
        @ConditionalOnMissingBean
        ClusterTransport troupeClusterTransport(ObjectProvider<RemoteTransport> remote) {
            final RemoteTransport transport = requireRemote(remote);
            try {
                return RemoteClusterTransport.create(transport);
            } catch (IllegalArgumentException e) {
                throw new TroupeConfigurationException("The application's SerializerRegistry bean does not carry the cluster's"
                    + " messages (member info, receptionist entries), so members could not talk.",
                    "Build the SerializerRegistry bean from RemoteClusterTransport.registerSerializer(SerializerRegistry.builder())"
                        + " and register the application's serializers on it, on every node.", e);
            }
        }

        @Bean
        @ConditionalOnMissingBean
        Cluster troupeCluster(ActorSystem system, ClusterSettings settings, ClusterTransport transport) {
            return Cluster.start(system, settings, transport);
        }

        @Bean
        @ConditionalOnMissingBean
        ClusterLifecycle troupeClusterLifecycle(Cluster cluster) {
            return new ClusterLifecycle(cluster, cluster.settings().leaveTimeout());
        }

        private static RemoteTransport requireRemote(ObjectProvider<RemoteTransport> remote) {
            final RemoteTransport transport = remote.getIfAvailable();
            if (transport == null) {
                throw new InvalidTroupePropertyException("troupe.cluster.enabled", "needs the remote transport, which is off",
                    "Set troupe.remote.enabled=true (with troupe.remote.secret or troupe.remote.ssl.bundle) on every node of the"
                        + " cluster, or set troupe.cluster.enabled=false.");
            }
            return transport;
        }

        private static MemberDiscovery staticDiscovery(TroupeClusterProperties p, ObjectProvider<RemoteTransport> remote) {
            if (p.getStaticMembers().isEmpty()) {
                final RemoteTransport t = remote.getIfAvailable();
                if (t == null) {
                    throw new InvalidTroupePropertyException("troupe.cluster.static-members", "is empty",
                        "List the members as host:port of their remote transport, or choose troupe.cluster.discovery=dns or spring-cloud.");
                }
                // Only this node: a cluster of one until discovery is configured.
                return StaticDiscovery.of(t.address().host() + ":" + t.address().port());
            }
            try {
                return StaticDiscovery.of(p.getStaticMembers().toArray(new String[0]));
            } catch (IllegalArgumentException e) {
                throw new InvalidTroupePropertyException("troupe.cluster.static-members", e.getMessage(),
                    "List each member as host:port of its remote transport, such as 10.0.0.7:25520.", e);
            }
        }

        private static MemberDiscovery dnsDiscovery(TroupeClusterProperties p, ObjectProvider<RemoteTransport> remote) {
            final TroupeClusterProperties.Dns dns = p.getDns();
            if (dns.getName() == null || dns.getName().isBlank()) {
                throw new InvalidTroupePropertyException("troupe.cluster.dns.name", "is not set, and troupe.cluster.discovery is dns",
                    "Set troupe.cluster.dns.name to the name whose records list the members: a Kubernetes headless Service"
                        + " (inventory.shop.svc.cluster.local) or a compose service (worker).");
            }
            InetSocketAddress server = null;
            if (dns.getServer() != null && !dns.getServer().isBlank()) {
                try {
                    final HostPort hp = HostPort.parse(dns.getServer());
                    server = new InetSocketAddress(hp.host(), hp.port());
                } catch (IllegalArgumentException e) {
                    throw new InvalidTroupePropertyException("troupe.cluster.dns.server", e.getMessage(),
                        "Set troupe.cluster.dns.server to host:port of a DNS server, such as 10.96.0.10:53, or leave it unset.", e);
                }
            }
            try {
                if (dns.isSrv()) {
                    return DnsDiscovery.srv(dns.getName(), server, dns.getTimeout());
                }
                int port;
                if (dns.getPort() != null) {
                    port = dns.getPort();
                } else {
                    final RemoteTransport t = remote.getIfAvailable();
                    port = t == null ? 0 : t.address().port();
                }
                if (port < 1 || port > 65535) {
                    throw new InvalidTroupePropertyException("troupe.cluster.dns.port", "must be within 1-65535: " + port,
                        "Set troupe.cluster.dns.port to the remote port every member listens on, or leave it unset to use this node's.");
                }
                return DnsDiscovery.addresses(dns.getName(), port, server, dns.getTimeout());
            } catch (IllegalArgumentException e) {
                throw new InvalidTroupePropertyException("troupe.cluster.dns." + (e.getMessage().contains("timeout") ? "timeout" : "name"),
                    e.getMessage(), null, e);
            }
        }

        private static MemberDiscovery springCloudDiscovery(TroupeClusterProperties p, ListableBeanFactory beanFactory, Environment environment) {
            final ClassLoader loader = beanFactory instanceof org.springframework.beans.factory.config.ConfigurableBeanFactory c
                && c.getBeanClassLoader() != null ? c.getBeanClassLoader() : TroupeClusterAutoConfiguration.class.getClassLoader();
            if (!ClassUtils.isPresent(DISCOVERY_CLIENT, loader)) {
                throw new InvalidTroupePropertyException("troupe.cluster.discovery", "is spring-cloud, but Spring Cloud Commons"
                    + " (" + DISCOVERY_CLIENT + ") is not on the class path",
                    "Add a Spring Cloud discovery starter (such as spring-cloud-starter-kubernetes-client or"
                        + " spring-cloud-starter-zookeeper-discovery), or choose troupe.cluster.discovery=dns or static.");
            }
            String serviceId = p.getSpringCloud().getServiceId();
            if (serviceId == null || serviceId.isBlank()) {
                serviceId = environment.getProperty("spring.application.name");
            }
            if (serviceId == null || serviceId.isBlank()) {
                throw new InvalidTroupePropertyException("troupe.cluster.spring-cloud.service-id", "is not set, and neither is spring.application.name",
                    "Set troupe.cluster.spring-cloud.service-id to the service whose instances are the members.");
            }
            return SpringCloudMembers.discovery(beanFactory, serviceId);
        }

        /**
         * Cluster sharding on this node, its {@code troupe.cluster.sharding.*} meters and the
         * {@code sharding} section of the troupe endpoint.
         */
        @Configuration(proxyBeanMethods = false)
        static class Sharding {

            /**
             * Lazy: created by the first {@code @TroupeEntity} bean or injection point, so an
             * application on the cluster that shards nothing needs no sharding serializers. Checks
             * the {@code troupe.cluster.sharding.*} defaults first, so a bad one fails startup naming it.
             */
            @Bean
            @Lazy
            @ConditionalOnMissingBean
            ClusterSharding troupeClusterSharding(Cluster cluster, TroupeClusterProperties p) {
                EntityBeanRegistrar.validate(p.getSharding());
                try {
                    return ClusterSharding.get(cluster.system());
                } catch (IllegalStateException e) {
                    throw new TroupeConfigurationException("The application's SerializerRegistry bean does not carry cluster sharding's"
                        + " messages (entity envelopes, shard hand-offs), so shard regions could not talk: " + e.getMessage(),
                        "Build the SerializerRegistry bean from ClusterSharding.registerSerializer(RemoteClusterTransport.registerSerializer("
                            + "SerializerRegistry.builder())) and register the application's serializers on it, on every node.", e);
                }
            }

            /** The ClusterSharding bean once something created it; null before, without creating it. */
            static Supplier<ClusterSharding> sharding(ConfigurableListableBeanFactory beanFactory) {
                return () -> {
                    for (String name : beanFactory.getBeanNamesForType(ClusterSharding.class, true, false)) {
                        if (beanFactory.containsSingleton(name)) {
                            return beanFactory.getBean(name, ClusterSharding.class);
                        }
                    }
                    return null;
                };
            }

            /** The regions of the ClusterSharding bean once something created it; none before, without creating it. */
            static Supplier<Collection<ShardingMetrics>> regions(ConfigurableListableBeanFactory beanFactory) {
                return () -> {
                    for (String name : beanFactory.getBeanNamesForType(ClusterSharding.class, true, false)) {
                        if (beanFactory.containsSingleton(name)) {
                            return beanFactory.getBean(name, ClusterSharding.class).metrics();
                        }
                    }
                    return List.of();
                };
            }

            @Configuration(proxyBeanMethods = false)
            @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
            @ConditionalOnBooleanProperty(name = "troupe.metrics.enabled", matchIfMissing = true)
            static class Metrics {

                @Bean
                @ConditionalOnMissingBean
                TroupeShardingMetrics troupeShardingMetrics(ConfigurableListableBeanFactory beanFactory, ActorSystem system) {
                    return new TroupeShardingMetrics(regions(beanFactory), system.name());
                }

                /** Entity types initialized after the registry was bound get their meters now and on each refresh of the actor meters. */
                @Bean
                static SmartInitializingSingleton troupeShardingMetricsRefresh(ObjectProvider<TroupeMetrics> metrics,
                                                                              ObjectProvider<TroupeShardingMetrics> sharding) {
                    return () -> sharding.ifAvailable(s -> {
                        s.refresh();
                        metrics.ifAvailable(m -> m.addRefreshHook(s::refresh));
                    });
                }
            }

            @Configuration(proxyBeanMethods = false)
            @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
            static class Endpoint {

                @Bean
                @ConditionalOnMissingBean(name = "troupeShardingReport")
                TroupeEndpointContributor troupeShardingReport(ConfigurableListableBeanFactory beanFactory, Cluster cluster) {
                    return new TroupeShardingReport(regions(beanFactory), sharding(beanFactory), cluster);
                }
            }
        }

        /** The troupe.cluster.* meters. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
        @ConditionalOnBooleanProperty(name = "troupe.metrics.enabled", matchIfMissing = true)
        static class Metrics {

            @Bean
            @ConditionalOnMissingBean
            TroupeClusterMetrics troupeClusterMetrics(Cluster cluster, Receptionist receptionist) {
                return new TroupeClusterMetrics(cluster, receptionist);
            }

            /** New service keys get their gauge on each refresh of the actor meters. */
            @Bean
            static SmartInitializingSingleton troupeClusterMetricsRefresh(ObjectProvider<TroupeMetrics> metrics,
                                                                        ObjectProvider<TroupeClusterMetrics> cluster) {
                return () -> metrics.ifAvailable(m -> cluster.ifAvailable(c -> m.addRefreshHook(c::refresh)));
            }
        }

        /** The troupeCluster health indicator, in the readiness group. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
        @ConditionalOnEnabledHealthIndicator("troupe-cluster")
        static class Health {

            @Bean
            @ConditionalOnMissingBean(name = "troupeClusterHealthIndicator")
            TroupeClusterHealthIndicator troupeClusterHealthIndicator(Cluster cluster) {
                return new TroupeClusterHealthIndicator(cluster);
            }

            @Bean
            @ConditionalOnMissingBean(name = "troupeClusterReadinessGroups")
            @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
            @ConditionalOnBooleanProperty(name = "troupe.health.readiness", matchIfMissing = true)
            TroupeReadinessGroups troupeClusterReadinessGroups() {
                return new TroupeReadinessGroups("troupeCluster");
            }
        }

        /** The cluster section of the troupe endpoint. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
        static class Endpoint {

            @Bean
            @ConditionalOnMissingBean(name = "troupeClusterMembers")
            TroupeEndpointContributor troupeClusterMembers(Cluster cluster, Receptionist receptionist, TroupeClusterProperties p) {
                return new TroupeClusterMembers(cluster, receptionist, p.getDiscovery().name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
        }
    }

    /** Keeps the Spring Cloud types out of the configuration class, so it loads without Spring Cloud. */
    static final class SpringCloudMembers {
        private SpringCloudMembers() {
        }

        static MemberDiscovery discovery(ListableBeanFactory beanFactory, String serviceId) {
            final org.springframework.cloud.client.discovery.DiscoveryClient client =
                beanFactory.getBeanProvider(org.springframework.cloud.client.discovery.DiscoveryClient.class).getIfAvailable();
            if (client == null) {
                throw new InvalidTroupePropertyException("troupe.cluster.discovery", "is spring-cloud, but the application has no"
                    + " DiscoveryClient bean", "Add a Spring Cloud discovery starter and its configuration (or"
                    + " spring.cloud.discovery.client.simple.instances), or choose troupe.cluster.discovery=dns or static.");
            }
            return new dev.troupe.spring.cluster.SpringCloudDiscovery(client, serviceId);
        }
    }
}
