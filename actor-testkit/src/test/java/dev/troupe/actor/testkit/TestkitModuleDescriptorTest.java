package dev.troupe.actor.testkit;

import dev.troupe.actor.architecture.ModuleSurface;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The module descriptor: the compiler lets other modules reach the API and the SPI, never the internals. */
class TestkitModuleDescriptorTest {

    @Test
    void theDescriptorExportsTheApiAndSpiAndTheCompilerRefusesTheInternals() {
        assertThat(ModuleSurface.check("dev.troupe.actor.testkit")).containsExactly("dev.troupe.actor.testkit");
    }
}
