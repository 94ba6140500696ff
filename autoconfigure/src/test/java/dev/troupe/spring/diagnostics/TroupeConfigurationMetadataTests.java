package dev.troupe.spring.diagnostics;

import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata IDEs complete {@code troupe.*} from
 * ({@code META-INF/spring-configuration-metadata.json}, generated from the properties classes'
 * field Javadoc and merged with {@code additional-spring-configuration-metadata.json}) covers every
 * key the binder accepts, the keys under maps included ({@code troupe.remote.refs.*.peer}), says
 * nothing the binder does not accept, gives the values of every enum-valued key and a class
 * provider for every class-valued one, and lists the health switches of every Troupe indicator.
 */
class TroupeConfigurationMetadataTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Map<String, JsonNode> properties = new LinkedHashMap<>();
    private final Map<String, JsonNode> hints = new LinkedHashMap<>();

    TroupeConfigurationMetadataTests() throws IOException {
        JsonNode troupe = null;
        for (var resource : new PathMatchingResourcePatternResolver().getResources("classpath*:META-INF/spring-configuration-metadata.json")) {
            try (InputStream in = resource.getInputStream()) {
                final String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (text.contains("\"troupe.enabled\"")) {
                    troupe = JSON.readTree(text);
                }
            }
        }
        assertThat(troupe).as("Troupe's generated metadata").isNotNull();
        troupe.get("properties").forEach(p -> properties.put(p.get("name").asString(), p));
        troupe.path("hints").forEach(h -> hints.put(h.get("name").asString(), h));
    }

    /** Binder keys as metadata names: {@code <name>} for a map key is {@code *}. */
    private static List<String> binderKeys() {
        final List<String> keys = new ArrayList<>();
        for (String k : TroupePropertyKeys.troupe().displayNames()) {
            keys.add(k.replace("<name>", "*"));
        }
        return keys;
    }

    @Test
    void everyKeyTheBinderAcceptsHasMetadataWithADescription() {
        final List<String> missing = new ArrayList<>();
        for (String key : binderKeys()) {
            JsonNode p = properties.get(key);
            if (p == null && key.endsWith(".*")) {
                // a map of plain values (troupe.remote.peers.<name>): the map property itself
                p = properties.get(key.substring(0, key.length() - 2));
                if (p != null && !p.get("type").asString().startsWith("java.util.Map<java.lang.String,java.lang.String>")) {
                    p = null;
                }
            }
            if (p == null || p.path("description").asString("").isBlank()) {
                missing.add(key);
            }
        }
        assertThat(missing).as("binder keys without metadata or description").isEmpty();
        assertThat(binderKeys()).contains("troupe.remote.refs.*.peer", "troupe.dispatchers.*.threads", "troupe.cluster.routers.*.routing");
    }

    @Test
    void metadataNamesNothingTheBinderRejects() {
        final List<String> unknown = new ArrayList<>();
        for (String name : properties.keySet()) {
            if (name.startsWith("troupe.") && !TroupePropertyKeys.troupe().isKnownOrGroup(name.replace("*", "x"))) {
                unknown.add(name);
            }
        }
        assertThat(unknown).isEmpty();
    }

    /** The hand-written keys under maps say what the classes say: the type, the default, and a dispatcher's like the default one's. */
    @Test
    void keysUnderMapsMatchTheirProperties() throws Exception {
        for (String key : List.of("type", "threads", "throughput", "idle-spins", "idle-yields", "max-park")) {
            assertThat(withoutName(properties.get("troupe.dispatchers.*." + key))).as(key)
                .isEqualTo(withoutName(properties.get("troupe.default-dispatcher." + key)));
        }
        checkAgainstClass("troupe.remote.refs.*.", Class.forName("dev.troupe.spring.autoconfigure.TroupeRemoteProperties$Ref"));
        checkAgainstClass("troupe.cluster.routers.*.", Class.forName("dev.troupe.spring.autoconfigure.TroupeClusterProperties$Router"));
    }

    private static String withoutName(JsonNode property) {
        assertThat(property).isNotNull();
        final tools.jackson.databind.node.ObjectNode copy = (tools.jackson.databind.node.ObjectNode) property.deepCopy();
        copy.remove("name");
        return JSON.writeValueAsString(copy);
    }

    private void checkAgainstClass(String prefix, Class<?> type) throws Exception {
        final Object defaults = BeanUtils.instantiateClass(type);
        int checked = 0;
        for (PropertyDescriptor pd : BeanUtils.getPropertyDescriptors(type)) {
            if (pd.getWriteMethod() == null) {
                continue;
            }
            final String name = prefix + TroupeSettingNames.kebab(pd.getName());
            final JsonNode p = properties.get(name);
            assertThat(p).as(name).isNotNull();
            assertThat(p.get("type").asString()).as(name).isEqualTo(typeName(ResolvableType.forMethodReturnType(pd.getReadMethod())));
            assertThat(p.get("sourceType").asString()).as(name).isEqualTo(type.getName());
            final Object value = pd.getReadMethod().invoke(defaults);
            if (value == null) {
                assertThat(p.has("defaultValue")).as(name + " has no default").isFalse();
            } else {
                assertThat(p.get("defaultValue").asString()).as(name).isEqualTo(value instanceof Enum<?> e
                    ? e.name().toLowerCase(Locale.ROOT).replace('_', '-') : String.valueOf(value));
            }
            checked++;
        }
        assertThat(checked).isPositive();
    }

    private static String typeName(ResolvableType t) {
        final Class<?> raw = t.toClass();
        if (raw == Class.class) {
            return "java.lang.Class<?>";
        }
        if (raw == int.class) {
            return Integer.class.getName();
        }
        return raw.getName();
    }

    @Test
    void everyEnumValuedKeyHasItsValuesAndEveryClassValuedKeyAClassProvider() throws Exception {
        final List<String> enumKeys = new ArrayList<>();
        final List<String> classKeys = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : properties.entrySet()) {
            if (!e.getKey().startsWith("troupe.")) {
                continue;
            }
            final String type = e.getValue().get("type").asString();
            if (type.startsWith("java.lang.Class")) {
                classKeys.add(e.getKey());
                continue;
            }
            final Class<?> c = type.contains("<") ? null : org.springframework.util.ClassUtils.resolveClassName(type, getClass().getClassLoader());
            if (c == null || !c.isEnum()) {
                continue;
            }
            enumKeys.add(e.getKey());
            final JsonNode hint = hints.get(e.getKey());
            assertThat(hint).as("hint of %s", e.getKey()).isNotNull();
            final Set<String> values = new LinkedHashSet<>();
            hint.get("values").forEach(v -> {
                values.add(v.get("value").asString());
                assertThat(v.path("description").asString("")).as("description of %s in %s", v, e.getKey()).isNotBlank();
            });
            final Set<String> expected = new LinkedHashSet<>();
            for (Object constant : c.getEnumConstants()) {
                expected.add(((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            assertThat(values).as(e.getKey()).isEqualTo(expected);
        }
        assertThat(enumKeys).contains("troupe.default-dispatcher.type", "troupe.dispatchers.*.type", "troupe.cluster.discovery",
            "troupe.cluster.routers.*.routing");
        assertThat(classKeys).contains("troupe.remote.refs.*.message-type", "troupe.cluster.routers.*.message-type");
        for (String key : classKeys) {
            assertThat(hints.get(key)).as("hint of %s", key).isNotNull();
            assertThat(hints.get(key).get("providers").get(0).get("name").asString()).as(key).isEqualTo("class-reference");
        }
    }

    /** Boot's switch of every Troupe health indicator, found on the auto-configuration classes themselves. */
    @Test
    void everyTroupeHealthIndicatorSwitchHasMetadata() throws Exception {
        final Set<String> indicators = new LinkedHashSet<>();
        try (InputStream in = getClass().getClassLoader()
            .getResourceAsStream("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("dev.troupe.")) {
                    collect(Class.forName(line.trim()), indicators);
                }
            }
        }
        assertThat(indicators).contains("troupe", "troupe-remote", "troupe-cluster");
        for (String indicator : indicators) {
            final JsonNode p = properties.get("management.health." + indicator + ".enabled");
            assertThat(p).as("management.health.%s.enabled", indicator).isNotNull();
            assertThat(p.get("type").asString()).isEqualTo("java.lang.Boolean");
            assertThat(p.get("defaultValue").asBoolean()).isTrue();
            assertThat(p.get("description").asString()).startsWith("Whether to enable");
        }
    }

    private static void collect(Class<?> type, Set<String> indicators) {
        final ConditionalOnEnabledHealthIndicator onType = type.getAnnotation(ConditionalOnEnabledHealthIndicator.class);
        if (onType != null) {
            indicators.add(onType.value());
        }
        for (Method m : type.getDeclaredMethods()) {
            final ConditionalOnEnabledHealthIndicator onMethod = m.getAnnotation(ConditionalOnEnabledHealthIndicator.class);
            if (onMethod != null && m.isAnnotationPresent(Bean.class)) {
                indicators.add(onMethod.value());
            }
        }
        for (Class<?> nested : type.getDeclaredClasses()) {
            collect(nested, indicators);
        }
    }
}
