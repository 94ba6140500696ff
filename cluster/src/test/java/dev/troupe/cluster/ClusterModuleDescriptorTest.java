package dev.troupe.cluster;

import dev.troupe.actor.architecture.ModuleSurface;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The module descriptor: the compiler lets other modules reach the API and the SPI, never the internals. */
class ClusterModuleDescriptorTest {

    @Test
    void theDescriptorExportsTheApiAndSpiAndTheCompilerRefusesTheInternals() {
        assertThat(ModuleSurface.check("dev.troupe.cluster")).containsExactly("dev.troupe.cluster", "dev.troupe.cluster.discovery", "dev.troupe.cluster.node", "dev.troupe.cluster.sharding", "dev.troupe.cluster.spi");
    }
}
