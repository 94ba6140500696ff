package dev.troupe.spring.autoconfigure;

import dev.troupe.remote.SerializerRegistry;
import dev.troupe.spring.diagnostics.InvalidTroupePropertyException;
import org.springframework.util.ClassUtils;

import java.util.List;

/**
 * The serializer registry the starter builds when the application declares none: the built-ins
 * and, with Jackson 3 and its CBOR format on the classpath (the remote and cluster starters bring
 * them), the marker serializers ({@code troupe.remote.serialization.*}).
 */
final class DefaultSerializers {

    /** In a class of its own, so that nothing links the Jackson serializer unless Jackson is present. */
    private static final class JacksonMarkers {
        static SerializerRegistry.Builder register(SerializerRegistry.Builder b, String[] packages) {
            return dev.troupe.remote.jackson.JacksonSerializer.registerMarkers(b, packages);
        }
    }

    private DefaultSerializers() {
    }

    /** @return whether Jackson's databind and CBOR format are both on the classpath */
    static boolean jacksonPresent(ClassLoader loader) {
        return ClassUtils.isPresent("tools.jackson.databind.ObjectMapper", loader)
            && ClassUtils.isPresent("tools.jackson.dataformat.cbor.CBORMapper", loader);
    }

    /**
     * @param properties the remote properties, null for their defaults
     * @param loader the application's class loader, where Jackson is looked for
     * @return a builder with the built-ins and, as configured, the marker serializers
     */
    static SerializerRegistry.Builder builder(TroupeRemoteProperties properties, ClassLoader loader) {
        final TroupeRemoteProperties.Serialization s = (properties != null ? properties : new TroupeRemoteProperties()).getSerialization();
        final SerializerRegistry.Builder b = SerializerRegistry.builder();
        final List<String> packages = s.getAllowedPackages();
        if (!s.isJacksonMarkers()) {
            if (!packages.isEmpty()) {
                throw new InvalidTroupePropertyException("troupe.remote.serialization.allowed-packages",
                    "is set but troupe.remote.serialization.jackson-markers=false turns the serializer that would allow them off", null);
            }
            return b;
        }
        if (!jacksonPresent(loader)) {
            if (!packages.isEmpty()) {
                throw new InvalidTroupePropertyException("troupe.remote.serialization.allowed-packages",
                    "is set but Jackson 3 is not on the classpath: add tools.jackson.dataformat:jackson-dataformat-cbor"
                        + " (or depend on troupe-spring-boot-starter-remote, which brings it)", null);
            }
            return b;
        }
        for (String p : packages) {
            if (p == null || p.isBlank()) {
                throw new InvalidTroupePropertyException("troupe.remote.serialization.allowed-packages", "holds an empty package name", null);
            }
        }
        return JacksonMarkers.register(b, packages.toArray(String[]::new));
    }
}
