package dev.troupe.spring.autoconfigure;

import dev.troupe.remote.RemoteSettings;
import dev.troupe.spring.diagnostics.TroupePropertyKeys;
import dev.troupe.spring.diagnostics.TroupeSettingNames;
import dev.troupe.spring.diagnostics.TroupeSettingNamesAccess;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every knob of {@link RemoteSettings} is a {@code troupe.remote.*} property that reaches the
 * settings, with the library's default. A knob added to the library fails
 * {@link #everyRemoteSettingShouldHaveAPropertyThatReachesIt()} until it is bound.
 */
class TroupeRemotePropertiesTests {

    /**
     * Accessors that no plain property sets: TLS comes from troupe.remote.ssl.bundle, serializers from a bean;
     * tlsPeerIdentities is a plain map but only valid with TLS, so it has its own test below.
     */
    static final Set<String> NOT_PLAIN_PROPERTIES = Set.of("serverSsl", "clientSsl", "tls", "serializers", "secret", "tlsPeerIdentities");

    /** A non-default value for each property, and the accessor that must show it. */
    static final Map<String, Object[]> VALUES = new LinkedHashMap<>();

    static {
        value("bind-host", "0.0.0.0", "bindHost", "0.0.0.0");
        value("bind-port", "25599", "bindPort", 25599);
        value("canonical-host", "node-1.example", "canonicalHost", "node-1.example");
        value("canonical-port", "25600", "canonicalPort", 25600);
        value("insecure", "true", "insecure", true);
        value("max-frame-size", "512KB", "maxFrameSize", 512 * 1024);
        value("outbound-buffer-size", "8MB", "outboundBufferSize", 8 << 20);
        value("io-threads", "2", "ioThreads", 2);
        value("io-idle-spin", "50us", "ioIdleSpin", java.time.Duration.ofNanos(50_000));
        value("socket-send-buffer", "1MB", "socketSendBuffer", 1024 * 1024);
        value("native-transport", "false", "nativeTransport", false);
        value("heartbeat-interval", "2s", "heartbeatInterval", Duration.ofSeconds(2));
        value("handshake-timeout", "7s", "handshakeTimeout", Duration.ofSeconds(7));
        value("idle-timeout", "45s", "idleTimeout", Duration.ofSeconds(45));
        value("max-connections", "64", "maxConnections", 64);
        value("system-message-resend-interval", "500ms", "systemMessageResendInterval", Duration.ofMillis(500));
        value("max-compression-entries", "1024", "maxCompressionEntries", 1024);
        value("failure-detector.threshold", "12.5", "phiThreshold", 12.5);
        value("failure-detector.acceptable-heartbeat-pause", "6s", "acceptableHeartbeatPause", Duration.ofSeconds(6));
        value("failure-detector.min-std-deviation", "250ms", "minHeartbeatStdDev", Duration.ofMillis(250));
        value("reconnect.min-backoff", "200ms", "reconnectMinBackoff", Duration.ofMillis(200));
        value("reconnect.max-backoff", "9s", "reconnectMaxBackoff", Duration.ofSeconds(9));
        value("max-pending-handshakes", "32", "maxPendingHandshakes", 32);
        value("max-pending-handshakes-per-source", "4", "maxPendingHandshakesPerSource", 4);
        value("max-associations", "100", "maxAssociations", 100);
        value("remove-idle-association-after", "10m", "removeIdleAssociationAfter", Duration.ofMinutes(10));
        value("max-path-length", "1000", "maxPathLength", 1000);
        value("max-path-depth", "16", "maxPathDepth", 16);
        value("max-unacked-system-messages", "2000", "maxUnackedSystemMessages", 2000);
        value("max-inbound-watches", "1000", "maxInboundWatches", 1000);
        value("max-peer-memory", "8MB", "maxPeerMemory", 8L << 20);
        value("max-remote-memory", "64MB", "maxRemoteMemory", 64L << 20);
        value("max-queued-messages", "500", "maxQueuedMessages", 500);
        value("max-queue-time", "5s", "maxQueueTime", Duration.ofSeconds(5));
        value("inbound-mailbox-high-watermark", "5000", "inboundMailboxHighWatermark", 5000);
    }

    private static void value(String property, String text, String accessor, Object expected) {
        VALUES.put("troupe.remote." + property, new Object[] {text, accessor, expected});
    }

    private static RemoteSettings settings(Map<String, String> properties) {
        final TroupeRemoteProperties p = new Binder(new MapConfigurationPropertySource(properties))
            .bind("troupe.remote", TroupeRemoteProperties.class).orElseGet(TroupeRemoteProperties::new);
        final RemoteSettings.Builder b = RemoteSettings.builder();
        TroupeRemoteAutoConfiguration.configure(p, b);
        return b.insecure(true).build();
    }

    private static Set<String> accessors() {
        final Set<String> names = new TreeSet<>();
        for (Method m : RemoteSettings.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0
                && !NOT_PLAIN_PROPERTIES.contains(m.getName())) {
                names.add(m.getName());
            }
        }
        return names;
    }

    @Test
    void everyRemoteSettingShouldHaveAPropertyThatReachesIt() throws Exception {
        final Set<String> covered = new TreeSet<>();
        for (Object[] v : VALUES.values()) {
            covered.add((String) v[1]);
        }
        assertThat(covered).as("RemoteSettings knobs without a troupe.remote.* property (add the property, a line in"
            + " TroupeRemoteAutoConfiguration.configure and one in VALUES)").containsAll(accessors());

        final Map<String, String> all = new LinkedHashMap<>();
        VALUES.forEach((property, v) -> all.put(property, (String) v[0]));
        final RemoteSettings s = settings(all);
        for (Map.Entry<String, Object[]> e : VALUES.entrySet()) {
            final Object actual = RemoteSettings.class.getMethod((String) e.getValue()[1]).invoke(s);
            assertThat(actual).as(e.getKey()).isEqualTo(e.getValue()[2]);
        }
    }

    @Test
    void tlsPeerIdentitiesShouldBindByPeerSystem() {
        final TroupeRemoteProperties p = new Binder(new MapConfigurationPropertySource(Map.of(
            "troupe.remote.tls-peer-identities.orders", "orders.internal")))
            .bind("troupe.remote", TroupeRemoteProperties.class).get();
        assertThat(p.getTlsPeerIdentities()).containsExactly(Map.entry("orders", "orders.internal"));
    }

    @Test
    void defaultsShouldBeTheLibrarysDefaults() throws Exception {
        final RemoteSettings bound = settings(Map.of());
        final RemoteSettings library = RemoteSettings.builder().insecure(true).build();
        for (String accessor : accessors()) {
            final Method m = RemoteSettings.class.getMethod(accessor);
            assertThat(m.invoke(bound)).as(accessor).isEqualTo(m.invoke(library));
        }
    }

    /** A refusal of the settings builder is reported under the property that set it. */
    @Test
    void everyBuilderSettingShouldMapToABoundProperty() {
        final TroupePropertyKeys keys = TroupePropertyKeys.of(UnknownTroupePropertiesCheck.PROPERTIES_CLASSES);
        for (Method m : RemoteSettings.Builder.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || "build".equals(m.getName()) || "serializers".equals(m.getName())) {
                continue;
            }
            final String property = TroupeSettingNames.property("RemoteSettings.Builder." + m.getName(), null);
            assertThat(property).as(m.getName()).isNotNull();
            assertThat(keys.isKnownOrGroup(property)).as(m.getName() + " -> " + property).isTrue();
        }
        for (String accessor : new String[] {"reconnectMinBackoff", "reconnectMaxBackoff"}) {
            assertThat(keys.isKnown(ConfigurationPropertyName.of(
                TroupeSettingNames.property("RemoteSettings.Builder." + accessor, null)))).as(accessor).isTrue();
        }
        assertThat(TroupeSettingNames.property("RemoteSettings.Builder.serializers", null)).isNull();
    }

    @Test
    void everyActorSettingShouldMapToABoundProperty() {
        final TroupePropertyKeys keys = TroupePropertyKeys.of(UnknownTroupePropertiesCheck.PROPERTIES_CLASSES);
        for (var c : dev.troupe.actor.DispatcherSettings.class.getRecordComponents()) {
            for (String element : new String[] {null, "default", "io"}) {
                final String property = TroupeSettingNames.property("DispatcherSettings." + c.getName(), element);
                assertThat(keys.isKnownOrGroup(property)).as(c.getName() + " (" + element + ") -> " + property).isTrue();
            }
        }
        assertThat(TroupeSettingNames.property("DispatcherSettings.maxPark", "io")).isEqualTo("troupe.dispatchers.io.max-park");
        assertThat(TroupeSettingNames.property("DispatcherSettings.threads", "default")).isEqualTo("troupe.default-dispatcher.threads");
        for (var c : dev.troupe.actor.MailboxSettings.class.getRecordComponents()) {
            final String property = TroupeSettingNames.property("MailboxSettings." + c.getName(), null);
            assertThat(keys.isKnown(ConfigurationPropertyName.of(property))).as(property).isTrue();
        }
        assertThat(TroupeSettingNames.property("ActorSystemSettings.Builder.daemonThreads", null)).isEqualTo("troupe.daemon-threads");
        assertThat(TroupeSettingNames.property("ActorSystemSettings.Builder.deadLetterLogInterval", null))
            .isEqualTo("troupe.dead-letters.log-interval");
        assertThat(TroupeSettingNames.property("Props.withDispatcher", "io")).isNull();
        for (String property : new TreeSet<>(TroupeSettingNamesAccess.exceptions())) {
            assertThat(keys.isKnownOrGroup(property)).as(property).isTrue();
        }
    }
}
