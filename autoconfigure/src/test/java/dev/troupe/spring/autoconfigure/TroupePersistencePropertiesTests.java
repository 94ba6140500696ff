package dev.troupe.spring.autoconfigure;

import dev.troupe.persistence.jdbc.JdbcSettings;
import dev.troupe.remote.SerializerRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code troupe.persistence.*} properties repeat the JDBC store's defaults as field initializers,
 * so that the configuration metadata shows them: bound from nothing, they must give the settings the
 * library gives on its own, accessor by accessor.
 */
class TroupePersistencePropertiesTests {

    @Test
    void defaultsShouldBeTheLibrarysDefaults() throws Exception {
        final SerializerRegistry serializers = SerializerRegistry.builder().build();
        final TroupePersistenceProperties p = new Binder(new MapConfigurationPropertySource(Map.of()))
            .bindOrCreate("troupe.persistence", TroupePersistenceProperties.class);
        final JdbcSettings bound = TroupePersistenceAutoConfiguration.Jdbc.configure(p.getJdbc(), JdbcSettings.builder(serializers)).build();
        final JdbcSettings library = JdbcSettings.builder(serializers).build();
        int compared = 0;
        for (Method m : JdbcSettings.class.getMethods()) {
            if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() != JdbcSettings.class) {
                continue;
            }
            assertThat(m.invoke(bound)).as(m.getName()).isEqualTo(m.invoke(library));
            compared++;
        }
        assertThat(compared).as("accessors compared").isGreaterThanOrEqualTo(10);
    }
}
