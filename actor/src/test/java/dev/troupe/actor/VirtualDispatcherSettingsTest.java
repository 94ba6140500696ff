package dev.troupe.actor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The type {@code virtual} of a dispatcher on the JVM the build runs on (Java 17): refused at
 * once, naming the setting. The dispatcher itself is tested on Java 25 by
 * {@code VirtualDispatcherTest}, in a surefire execution of its own.
 */
class VirtualDispatcherSettingsTest {

    @Test
    void onAJvmBeforeJava21AVirtualDispatcherIsRefusedNamingTheSetting() {
        if (Runtime.version().feature() >= 21) {
            // the same settings are accepted where virtual threads exist
            assertThat(DispatcherSettings.virtual("blocking").type()).isEqualTo(DispatcherSettings.Type.VIRTUAL);
            return;
        }
        assertThatThrownBy(() -> DispatcherSettings.virtual("blocking"))
            .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                assertThat(e.setting()).isEqualTo("DispatcherSettings.type");
                assertThat(e.element()).isEqualTo("blocking");
                assertThat(e.problem()).contains("Java 21").contains("Java " + Runtime.version().feature());
            })
            .hasMessageStartingWith("DispatcherSettings.type (blocking): virtual threads need Java 21 or newer");
        // the same through a system's settings: startup fails before any thread starts
        assertThatThrownBy(() -> ActorSystem.create("no-virtual", ActorSystemSettings.builder()
            .dispatcher(DispatcherSettings.of("jdbc").withType(DispatcherSettings.Type.VIRTUAL)).build()))
            .isInstanceOf(InvalidSettingException.class).hasMessageContaining("DispatcherSettings.type (jdbc)");
    }

    @Test
    void platformIsTheDefaultTypeAndKeptByTheCopies() {
        final DispatcherSettings d = DispatcherSettings.of("cpu");
        assertThat(d.type()).isEqualTo(DispatcherSettings.Type.PLATFORM);
        assertThat(new DispatcherSettings("x", 1, 1, 0, 0, java.time.Duration.ofMillis(1)).type()).isEqualTo(DispatcherSettings.Type.PLATFORM);
        assertThat(d.withThreads(3).withThroughput(5).withName("other").type()).isEqualTo(DispatcherSettings.Type.PLATFORM);
        assertThatThrownBy(() -> d.withType(null)).isInstanceOfSatisfying(InvalidSettingException.class,
            e -> assertThat(e.setting()).isEqualTo("DispatcherSettings.type"));
        // the default dispatcher keeps its type when the builder renames it
        assertThat(ActorSystemSettings.builder().defaultDispatcher(d.withThreads(2)).build().defaultDispatcher())
            .isEqualTo(d.withThreads(2).withName(DispatcherSettings.DEFAULT_NAME));
    }
}
