package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.remote.PeerMetrics;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.remote.RemoteTransport;
import dev.troupe.remote.SerializerRegistry;
import dev.troupe.remote.TransportBindException;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import dev.troupe.spring.endpoint.TroupeEndpointContributor;
import dev.troupe.spring.metrics.TroupeMetrics;
import dev.troupe.spring.remote.RemoteTransportLifecycle;
import dev.troupe.spring.remote.TroupeRemoteHealthIndicator;
import dev.troupe.spring.remote.TroupeRemoteMetrics;
import dev.troupe.spring.remote.TroupeRemotePeers;
import dev.troupe.spring.web.PeerStates;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.util.unit.DataSize;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.ApplicationContext;

import javax.net.ssl.SSLException;

/**
 * The remote transport, when {@code troupe-remote} is on the classpath and
 * {@code troupe.remote.enabled=true}: a {@link RemoteTransport} bean bound to
 * {@code troupe.remote.bind-host:bind-port}, remote {@code ActorRef} beans from
 * {@code troupe.remote.refs.*}, the {@code troupe.remote.*} meters, a
 * {@code troupeRemote} health indicator with the peers, and a {@code remote} section in
 * the {@code troupe} endpoint. A {@link SerializerRegistry} bean, if the application has
 * one, sets the serializers; without one, the built-ins and (with Jackson 3 on the classpath, as
 * the remote starter brings it) the marker serializers of {@code CborSerializable} and
 * {@code JsonSerializable} messages ({@code troupe.remote.serialization.*}).
 */
@AutoConfiguration(after = TroupeAutoConfiguration.class,
    afterName = "org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration",
    before = {TroupeMetricsAutoConfiguration.class, TroupeHealthAutoConfiguration.class, TroupeEndpointAutoConfiguration.class})
@ConditionalOnClass({RemoteTransport.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
@Conditional(TroupeRemoteAutoConfiguration.OnRemoteEnabled.class)
@EnableConfigurationProperties(TroupeRemoteProperties.class)
public class TroupeRemoteAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RemoteSettings troupeRemoteSettings(TroupeRemoteProperties p, ObjectProvider<SerializerRegistry> serializers,
                                        ObjectProvider<SslBundles> sslBundles, ObjectProvider<TroupeConnectionDetails> connections,
                                        ApplicationContext context) {
        final RemoteSettings.Builder b = RemoteSettings.builder();
        configure(p, b);
        final String secret = secret(p, connections);
        if (secret != null) {
            b.secret(secret);
        }
        if (p.getSsl().getBundle() != null) {
            final SslBundles bundles = sslBundles.getIfAvailable();
            if (bundles == null) {
                throw new InvalidTroupePropertyException("troupe.remote.ssl.bundle", "is set but the application has no SSL bundles", null);
            }
            final SslBundle bundle;
            try {
                bundle = bundles.getBundle(p.getSsl().getBundle());
            } catch (NoSuchSslBundleException e) {
                throw new InvalidTroupePropertyException("troupe.remote.ssl.bundle", "names no configured SSL bundle: " + e.getMessage(), null, e);
            }
            try {
                final SslContext server = SslContextBuilder.forServer(bundle.getManagers().getKeyManagerFactory())
                    .trustManager(bundle.getManagers().getTrustManagerFactory()).clientAuth(ClientAuth.REQUIRE).build();
                final SslContext client = SslContextBuilder.forClient().keyManager(bundle.getManagers().getKeyManagerFactory())
                    .trustManager(bundle.getManagers().getTrustManagerFactory()).build();
                b.tls(server, client);
            } catch (SSLException | IllegalArgumentException e) {
                throw new InvalidTroupePropertyException("troupe.remote.ssl.bundle", "the bundle '" + p.getSsl().getBundle()
                    + "' cannot be used for TLS: " + e.getMessage(), null, e);
            }
        }
        // the application's registry (or the cluster's), else the built-ins and the marker serializers
        b.serializers(serializers.getIfAvailable(() -> DefaultSerializers.builder(p, context.getClassLoader()).build()));
        // an InvalidSettingException names the builder method; the failure analyzer maps it to the property
        return b.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RemoteTransport troupeRemoteTransport(ActorSystem system, RemoteSettings settings) {
        try {
            return RemoteTransport.start(system, settings);
        } catch (TransportBindException e) {
            throw bindFailure(e);
        }
    }

    /** A port in use (two nodes on one machine) or a host not of this machine: reported under the property to change. */
    static InvalidTroupePropertyException bindFailure(TransportBindException e) {
        final String where = e.host() + ":" + e.port();
        if (e.portInUse()) {
            return new InvalidTroupePropertyException("troupe.remote.bind-port", "the remote transport cannot listen on " + where
                + ": the port is in use (" + e.reason() + ")",
                "Another process listens on port " + e.port() + ", often another node on this machine. Give each node its own"
                    + " troupe.remote.bind-port (and name that port in the other nodes' troupe.remote.peers.*), or stop the other process.",
                e);
        }
        return new InvalidTroupePropertyException("troupe.remote.bind-host", "the remote transport cannot listen on " + where
            + " (" + e.reason() + ")",
            "Set troupe.remote.bind-host to an address of this machine (127.0.0.1 by default, 0.0.0.0 for all of them), and"
                + " troupe.remote.canonical-host to the name or address the other nodes dial.",
            e);
    }

    @Bean
    @ConditionalOnMissingBean
    RemoteTransportLifecycle troupeRemoteTransportLifecycle(RemoteTransport transport, TroupeRemoteProperties properties) {
        return new RemoteTransportLifecycle(transport, properties.getFlushTimeout());
    }

    /** For the web problem details: an ask to an actor on a node that is not active answers 503. */
    @Bean
    @ConditionalOnMissingBean
    PeerStates troupePeerStates(RemoteTransport transport) {
        return address -> {
            for (PeerMetrics peer : transport.metrics().peers()) {
                if (peer.address().equals(address)) {
                    return peer.state().tag();
                }
            }
            return null;
        };
    }

    @Bean
    @ConditionalOnMissingBean
    static RemoteRefRegistrar troupeRemoteRefRegistrar() {
        return new RemoteRefRegistrar();
    }

    /**
     * @return troupe.remote.secret, else the one secret of the connection details; every peer of
     *         one transport proves the same secret
     */
    private static String secret(TroupeRemoteProperties p, ObjectProvider<TroupeConnectionDetails> connections) {
        final String configured = p.getSecret() == null || p.getSecret().isEmpty() ? null : p.getSecret();
        String chosen = configured;
        for (TroupeConnectionDetails c : connections.orderedStream().toList()) {
            final String s = c.secret();
            if (s == null || s.isEmpty()) {
                continue;
            }
            if (chosen == null) {
                chosen = s;
            } else if (!chosen.equals(s)) {
                throw new InvalidTroupePropertyException("troupe.remote.secret", "the peer '" + c.peerName() + "' ("
                    + c.address() + ") proves another secret than " + (configured != null ? "troupe.remote.secret"
                    : "the other connected peers"), "Give every node, containers included, the same troupe.remote.secret.");
            }
        }
        return chosen;
    }

    /**
     * {@code troupe.remote.enabled} when set, else whether a {@link TroupeConnectionDetails} bean exists
     * (evaluated when beans are registered, as {@code @ConditionalOnBean} is, so the application's own
     * definitions are seen).
     */
    static final class OnRemoteEnabled extends SpringBootCondition implements ConfigurationCondition {

        @Override
        public ConfigurationPhase getConfigurationPhase() {
            return ConfigurationPhase.REGISTER_BEAN;
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            final Boolean enabled = context.getEnvironment().getProperty("troupe.remote.enabled", Boolean.class);
            if (enabled != null) {
                return enabled ? ConditionOutcome.match("troupe.remote.enabled is true") : ConditionOutcome.noMatch("troupe.remote.enabled is false");
            }
            final ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
            if (beanFactory != null && beanFactory.getBeanNamesForType(TroupeConnectionDetails.class, true, false).length > 0) {
                return ConditionOutcome.match("a TroupeConnectionDetails bean exists");
            }
            return ConditionOutcome.noMatch("troupe.remote.enabled is not set and there is no TroupeConnectionDetails bean");
        }
    }

    /**
     * Sets every transport knob that has a {@code troupe.remote.*} property: one line each, so a
     * new knob is a new property and a new line here ({@code TroupeRemotePropertiesTests} fails
     * until both exist).
     */
    static void configure(TroupeRemoteProperties p, RemoteSettings.Builder b) {
        final PropertyMapper map = PropertyMapper.get();
        map.from(p::getBindHost).to(b::bindHost);
        map.from(p::getBindPort).to(b::bindPort);
        map.from(p::getCanonicalHost).to(b::canonicalHost);
        map.from(p::getCanonicalPort).to(b::canonicalPort);
        map.from(p::isInsecure).to(b::insecure);
        map.from(p::getMaxFrameSize).as(s -> toInt(s.toBytes(), "troupe.remote.max-frame-size")).to(b::maxFrameSize);
        map.from(p::getOutboundBufferSize).as(s -> toInt(s.toBytes(), "troupe.remote.outbound-buffer-size")).to(b::outboundBufferSize);
        map.from(p::getIoThreads).to(b::ioThreads);
        map.from(p::getIoIdleSpin).to(b::ioIdleSpin);
        map.from(p::getSocketSendBuffer).as(s -> toInt(s.toBytes(), "troupe.remote.socket-send-buffer")).to(b::socketSendBuffer);
        map.from(p::isNativeTransport).to(b::nativeTransport);
        map.from(p::getHeartbeatInterval).to(b::heartbeatInterval);
        map.from(p::getHandshakeTimeout).to(b::handshakeTimeout);
        map.from(p::getIdleTimeout).to(b::idleTimeout);
        map.from(p::getMaxConnections).to(b::maxConnections);
        map.from(p::getSystemMessageResendInterval).to(b::systemMessageResendInterval);
        map.from(p::getMaxCompressionEntries).to(b::maxCompressionEntries);
        map.from(p::getMaxPendingHandshakes).to(b::maxPendingHandshakes);
        map.from(p::getMaxPendingHandshakesPerSource).to(b::maxPendingHandshakesPerSource);
        map.from(p::getMaxAssociations).to(b::maxAssociations);
        map.from(p::getRemoveIdleAssociationAfter).to(b::removeIdleAssociationAfter);
        map.from(p::getMaxPathLength).to(b::maxPathLength);
        map.from(p::getMaxPathDepth).to(b::maxPathDepth);
        map.from(p::getMaxUnackedSystemMessages).to(b::maxUnackedSystemMessages);
        map.from(p::getMaxInboundWatches).to(b::maxInboundWatches);
        map.from(p::getMaxPeerMemory).as(DataSize::toBytes).to(b::maxPeerMemory);
        map.from(p::getMaxRemoteMemory).as(DataSize::toBytes).to(b::maxRemoteMemory);
        map.from(p::getMaxQueuedMessages).to(b::maxQueuedMessages);
        map.from(p::getMaxQueueTime).to(b::maxQueueTime);
        map.from(p::getInboundMailboxHighWatermark).to(b::inboundMailboxHighWatermark);
        map.from(p::getTlsPeerIdentities).to(b::tlsPeerIdentities);
        map.from(p.getFailureDetector()::getThreshold).to(b::phiThreshold);
        map.from(p.getFailureDetector()::getAcceptableHeartbeatPause).to(b::acceptableHeartbeatPause);
        map.from(p.getFailureDetector()::getMinStdDeviation).to(b::minHeartbeatStdDev);
        b.reconnectBackoff(p.getReconnect().getMinBackoff(), p.getReconnect().getMaxBackoff());
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
            throw new InvalidTroupePropertyException(property, "is too large: " + bytes + " bytes", null);
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

    /**
     * The troupeRemote health indicator; {@link TroupeHealthAutoConfiguration} adds it to the readiness group (its
     * status is about this node only), after Boot has made the group.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("troupe-remote")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "troupeRemoteHealthIndicator")
        TroupeRemoteHealthIndicator troupeRemoteHealthIndicator(RemoteTransport transport, ObjectProvider<TroupeProperties> properties) {
            final TroupeProperties p = properties.getIfAvailable();
            return new TroupeRemoteHealthIndicator(transport,
                p != null ? p.getHealth().getInternalErrorWindow() : TroupeRemoteHealthIndicator.DEFAULT_INTERNAL_ERROR_WINDOW);
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
