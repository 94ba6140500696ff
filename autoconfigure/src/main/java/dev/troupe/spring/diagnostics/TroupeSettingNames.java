package dev.troupe.spring.diagnostics;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Translates the settings a Troupe library refuses ({@code InvalidSettingException.setting()}, the
 * settings builder method or record component, such as {@code RemoteSettings.Builder.secret} or
 * {@code DispatcherSettings.threads}) into the {@code troupe.*} property that sets it.
 *
 * <p>Most names follow one rule: the builder method or component in kebab case under the
 * settings class's prefix ({@code RemoteSettings.Builder.maxFrameSize} is
 * {@code troupe.remote.max-frame-size}, {@code DispatcherSettings.threads} of dispatcher
 * {@code io} is {@code troupe.dispatchers.io.threads}). Names that do not follow it are listed in
 * {@link #EXCEPTIONS}, one line each. A name that maps to no known property gives null, and the
 * failure report names the setting itself.
 */
public final class TroupeSettingNames {

    /** Settings whose property does not follow the naming rule. */
    static final Map<String, String> EXCEPTIONS = Map.ofEntries(
        Map.entry("ActorSystem.name", "troupe.system-name"),
        Map.entry("ActorSystem.create", "troupe.system-name"),
        Map.entry("ActorSystemSettings.Builder.timerWheel", "troupe.timer.tick"),
        Map.entry("ActorSystemSettings.Builder.timerWheel.tick", "troupe.timer.tick"),
        Map.entry("ActorSystemSettings.Builder.timerWheel.ticksPerWheel", "troupe.timer.ticks-per-wheel"),
        Map.entry("ActorSystemSettings.Builder.timerTick", "troupe.timer.tick"),
        Map.entry("ActorSystemSettings.Builder.timerTicksPerWheel", "troupe.timer.ticks-per-wheel"),
        Map.entry("ActorSystemSettings.Builder.deadLetters", "troupe.dead-letters"),
        Map.entry("ActorSystemSettings.Builder.deadLetterSampleSize", "troupe.dead-letters.sample-size"),
        Map.entry("ActorSystemSettings.Builder.deadLetterLogLimit", "troupe.dead-letters.log-limit"),
        Map.entry("ActorSystemSettings.Builder.deadLetterLogInterval", "troupe.dead-letters.log-interval"),
        Map.entry("ActorSystemSettings.Builder.deadLetters.sampleSize", "troupe.dead-letters.sample-size"),
        Map.entry("ActorSystemSettings.Builder.deadLetters.logLimit", "troupe.dead-letters.log-limit"),
        Map.entry("ActorSystemSettings.Builder.deadLetters.logInterval", "troupe.dead-letters.log-interval"),
        Map.entry("ActorSystemSettings.Builder.defaultMailbox", "troupe.default-mailbox"),
        Map.entry("ActorSystemSettings.Builder.defaultDispatcher", "troupe.default-dispatcher"),
        Map.entry("RemoteSettings.Builder.tls", "troupe.remote.ssl.bundle"),
        Map.entry("RemoteSettings.Builder.phiThreshold", "troupe.remote.failure-detector.threshold"),
        Map.entry("RemoteSettings.Builder.acceptableHeartbeatPause", "troupe.remote.failure-detector.acceptable-heartbeat-pause"),
        Map.entry("RemoteSettings.Builder.minHeartbeatStdDev", "troupe.remote.failure-detector.min-std-deviation"),
        Map.entry("RemoteSettings.Builder.reconnectBackoff", "troupe.remote.reconnect"),
        Map.entry("RemoteSettings.Builder.reconnectBackoff.min", "troupe.remote.reconnect.min-backoff"),
        Map.entry("RemoteSettings.Builder.reconnectBackoff.max", "troupe.remote.reconnect.max-backoff"),
        Map.entry("RemoteSettings.Builder.reconnectMinBackoff", "troupe.remote.reconnect.min-backoff"),
        Map.entry("RemoteSettings.Builder.reconnectMaxBackoff", "troupe.remote.reconnect.max-backoff"),
        Map.entry("ClusterSettings.Builder.discovery", "troupe.cluster.discovery"));

    /** Settings that no property sets: the report names the setting itself. */
    static final Set<String> NOT_PROPERTIES = Set.of(
        "RemoteSettings.Builder.serializers",
        "ActorSystemSettings.Builder.dispatcher",
        "MailboxSettings.bounded",
        "Props.withDispatcher",
        "Props.withBoundedMailbox");

    /** What to do about a setting no property sets, where there is more to say than "change it". */
    static final Map<String, String> SETTING_ADVICE = Map.ofEntries(
        Map.entry("Props.withDispatcher", "Configure the dispatcher as troupe.dispatchers.<name>.* (threads, throughput, ...), or"
            + " name a configured one in @TroupeActor(dispatcher = ...) or Props.withDispatcher."),
        Map.entry("Props.withBoundedMailbox", "Give @TroupeActor(mailboxCapacity = ...) or Props.withBoundedMailbox a positive"
            + " capacity (0 in @TroupeActor means unbounded, -1 the system's default mailbox)."),
        Map.entry("RemoteSettings.Builder.serializers", "Declare a SerializerRegistry bean whose serializers cover the message"
            + " types the application sends, and give every node the same serializers."));

    /** What to do about a property, where there is more to say than "change it". */
    static final Map<String, String> ADVICE = Map.ofEntries(
        Map.entry("troupe.remote.secret", "Set troupe.remote.secret to a shared secret of at least 16 bytes, the same on every"
            + " node (for example troupe.remote.secret=${TROUPE_SECRET}); or set troupe.remote.ssl.bundle to an SSL bundle"
            + " (spring.ssl.bundle.*) for mutual TLS instead; or, on a trusted network only, troupe.remote.insecure=true."),
        Map.entry("troupe.remote.ssl.bundle", "Name an SSL bundle configured under spring.ssl.bundle.* with a key store and a"
            + " trust store, and do not set troupe.remote.secret beside it."),
        Map.entry("troupe.shutdown.timeout", "Make troupe.shutdown.timeout shorter than spring.lifecycle.timeout-per-shutdown-phase"
            + " (Boot's default is 30s), or raise spring.lifecycle.timeout-per-shutdown-phase."),
        Map.entry("troupe.remote.outbound-buffer-size", "Make troupe.remote.outbound-buffer-size a power of two (such as 2MB, 4MB,"
            + " 8MB) of at least 8 times troupe.remote.max-frame-size."),
        Map.entry("troupe.timer.ticks-per-wheel", "Make troupe.timer.ticks-per-wheel a power of two, such as 512."),
        Map.entry("troupe.cluster.down-after", "Leave troupe.cluster.down-after unset (members are removed once unreachable and gone"
            + " from discovery), or set it to a positive duration such as 5m; both sides of a partition then remove each other."),
        Map.entry("troupe.cluster.roles", "Give each role 1 to 64 printable ASCII characters without spaces or commas, at most 16 roles."));

    private TroupeSettingNames() {
    }

    /**
     * @param setting the settings builder method or record component, such as {@code DispatcherSettings.threads}
     * @param element the member of a collection setting (a dispatcher's name), or null
     * @return the {@code troupe.*} property that sets it, or null when none does
     */
    public static String property(String setting, String element) {
        if (setting == null || NOT_PROPERTIES.contains(setting)) {
            return null;
        }
        final String exception = EXCEPTIONS.get(setting);
        if (exception != null) {
            return exception;
        }
        if (setting.startsWith("DispatcherSettings.")) {
            final String prefix = element == null || "default".equals(element) ? "troupe.default-dispatcher" : "troupe.dispatchers." + element;
            final String component = setting.substring("DispatcherSettings.".length());
            return "name".equals(component) ? prefix : prefix + "." + kebab(component);
        }
        if (setting.startsWith("MailboxSettings.")) {
            return "troupe.default-mailbox." + kebab(setting.substring("MailboxSettings.".length()));
        }
        if (setting.startsWith("RemoteSettings.Builder.")) {
            return "troupe.remote." + kebab(setting.substring("RemoteSettings.Builder.".length()));
        }
        if (setting.startsWith("ClusterSettings.Builder.")) {
            return "troupe.cluster." + kebab(setting.substring("ClusterSettings.Builder.".length()));
        }
        if (setting.startsWith("ActorSystemSettings.Builder.")) {
            return "troupe." + kebab(setting.substring("ActorSystemSettings.Builder.".length()));
        }
        return null;
    }

    /**
     * @param setting a setting no property sets, such as {@code Props.withDispatcher}
     * @return advice on what to change, or null
     */
    public static String settingAdvice(String setting) {
        return SETTING_ADVICE.get(setting);
    }

    /**
     * @param property a {@code troupe.*} property
     * @return advice on what to set it to, or null when "change it" is all there is to say
     */
    public static String advice(String property) {
        return ADVICE.get(property);
    }

    /** {@code maxFrameSize} to {@code max-frame-size}; dots stay, so {@code reconnect.minBackoff} keeps its group. */
    static String kebab(String camel) {
        final StringBuilder b = new StringBuilder(camel.length() + 8);
        for (int i = 0; i < camel.length(); i++) {
            final char c = camel.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0 && camel.charAt(i - 1) != '.') {
                    b.append('-');
                }
                b.append(Character.toLowerCase(c));
            } else {
                b.append(c);
            }
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }
}
