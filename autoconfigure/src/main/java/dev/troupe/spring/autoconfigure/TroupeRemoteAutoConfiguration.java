package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import dev.troupe.spring.metrics.TroupeMetrics;
import dev.troupe.spring.remote.RemoteTransportLifecycle;
import dev.troupe.spring.remote.TroupeRemoteHealthIndicator;
import dev.troupe.spring.remote.TroupeRemoteMetrics;
import dev.troupe.spring.remote.TroupeRemotePeers;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.springframework.beans.factory.ObjectProvider;
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
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.net.ssl.SSLException;

/**
 * The remote transport, when {@code troupe-remote} is on the classpath and
 * {@code troupe.remote.enabled=true}: a {@link RemoteTransport} bean bound to
 * {@code troupe.remote.bind-host:bind-port}, remote {@code ActorRef} beans from
 * {@code troupe.remote.refs.*}, the {@code troupe.remote.*} meters, a
 * {@code troupeRemote} health indicator with the peers, and a {@code remote} section in
 * the {@code troupe} endpoint. A {@link SerializerRegistry} bean, if the application has
 * one, sets the serializers.
 */
@AutoConfiguration(after = TroupeAutoConfiguration.class,
    before = {TroupeMetricsAutoConfiguration.class, TroupeHealthAutoConfiguration.class, TroupeEndpointAutoConfiguration.class})
@ConditionalOnClass({RemoteTransport.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
@ConditionalOnBooleanProperty(name = "troupe.remote.enabled")
@EnableConfigurationProperties(TroupeRemoteProperties.class)
public class TroupeRemoteAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RemoteSettings troupeRemoteSettings(TroupeRemoteProperties p, ObjectProvider<SerializerRegistry> serializers,
                                        ObjectProvider<SslBundles> sslBundles) {
        final RemoteSettings.Builder b = RemoteSettings.builder()
            .bindHost(p.getBindHost())
            .bindPort(p.getBindPort())
            .insecure(p.isInsecure())
            .maxFrameSize(toInt(p.getMaxFrameSize().toBytes(), "troupe.remote.max-frame-size"))
            .outboundBufferSize(toInt(p.getOutboundBufferSize().toBytes(), "troupe.remote.outbound-buffer-size"))
            .ioThreads(p.getIoThreads())
            .heartbeatInterval(p.getHeartbeatInterval())
            .nativeTransport(p.isNativeTransport());
        if (p.getCanonicalHost() != null) {
            b.canonicalHost(p.getCanonicalHost());
        }
        if (p.getCanonicalPort() != null) {
            b.canonicalPort(p.getCanonicalPort());
        }
        if (p.getSecret() != null && !p.getSecret().isEmpty()) {
            b.secret(p.getSecret());
        }
        if (p.getSsl().getBundle() != null) {
            final SslBundles bundles = sslBundles.getIfAvailable();
            if (bundles == null) {
                throw new IllegalStateException("troupe.remote.ssl.bundle is set but the application has no SslBundles (spring.ssl.bundle.*)");
            }
            final SslBundle bundle = bundles.getBundle(p.getSsl().getBundle());
            try {
                final SslContext server = SslContextBuilder.forServer(bundle.getManagers().getKeyManagerFactory())
                    .trustManager(bundle.getManagers().getTrustManagerFactory()).clientAuth(ClientAuth.REQUIRE).build();
                final SslContext client = SslContextBuilder.forClient().keyManager(bundle.getManagers().getKeyManagerFactory())
                    .trustManager(bundle.getManagers().getTrustManagerFactory()).build();
                b.tls(server, client);
            } catch (SSLException e) {
                throw new IllegalStateException("troupe.remote.ssl.bundle '" + p.getSsl().getBundle() + "' cannot be used for TLS: " + e.getMessage(), e);
            }
        }
        serializers.ifAvailable(b::serializers);
        return b.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RemoteTransport troupeRemoteTransport(ActorSystem system, RemoteSettings settings) {
        return RemoteTransport.start(system, settings);
    }

    @Bean
    @ConditionalOnMissingBean
    RemoteTransportLifecycle troupeRemoteTransportLifecycle(RemoteTransport transport, TroupeRemoteProperties properties) {
        return new RemoteTransportLifecycle(transport, properties.getFlushTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    static RemoteRefRegistrar troupeRemoteRefRegistrar() {
        return new RemoteRefRegistrar();
    }

    /**
     * Publishes every (non-lazy) {@code @TroupeActor} bean actor on the transport with its
     * message class: only published actors can be addressed from other nodes, and messages of
     * another class are refused before they reach the actor.
     */
    @Bean
    static SmartInitializingSingleton troupeRemoteActorPublisher(ConfigurableListableBeanFactory beanFactory) {
        return () -> {
            final RemoteTransport transport = beanFactory.getBeanProvider(RemoteTransport.class).getIfAvailable();
            if (transport == null) {
                return;
            }
            for (String name : beanFactory.getBeanNamesForType(ActorRef.class, true, false)) {
                final BeanDefinition definition = beanFactory.getMergedBeanDefinition(name);
                if (definition.getAttribute(ActorBeanRegistrar.MESSAGE_CLASS_ATTRIBUTE) instanceof Class<?> type && !definition.isLazyInit()) {
                    publish(transport, beanFactory.getBean(name, ActorRef.class), type);
                }
            }
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void publish(RemoteTransport transport, ActorRef ref, Class type) {
        transport.publish(ref, type);
    }

    private static int toInt(long bytes, String property) {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(property + " is too large: " + bytes + " bytes");
        }
        return (int) bytes;
    }

    /** The troupe.remote.* meters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    @ConditionalOnBooleanProperty(name = "troupe.metrics.enabled", matchIfMissing = true)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        TroupeRemoteMetrics troupeRemoteMetrics(RemoteTransport transport) {
            return new TroupeRemoteMetrics(transport);
        }

        /** New peers get their meters on each refresh of the actor meters. */
        @Bean
        static SmartInitializingSingleton troupeRemoteMetricsRefresh(ObjectProvider<TroupeMetrics> metrics,
                                                                   ObjectProvider<TroupeRemoteMetrics> remote) {
            return () -> metrics.ifAvailable(m -> remote.ifAvailable(r -> m.addRefreshHook(r::refresh)));
        }
    }

    /** The troupeRemote health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("troupe-remote")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "troupeRemoteHealthIndicator")
        TroupeRemoteHealthIndicator troupeRemoteHealthIndicator(RemoteTransport transport) {
            return new TroupeRemoteHealthIndicator(transport);
        }
    }

    /** The remote section of the troupe endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Endpoint {

        @Bean
        @ConditionalOnMissingBean(name = "troupeRemotePeers")
        TroupeEndpointContributor troupeRemotePeers(RemoteTransport transport) {
            return new TroupeRemotePeers(transport);
        }
    }
}
