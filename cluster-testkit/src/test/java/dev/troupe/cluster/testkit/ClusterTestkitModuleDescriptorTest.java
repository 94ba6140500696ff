package dev.troupe.cluster.testkit;

import dev.troupe.actor.architecture.ModuleSurface;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The cluster test kit's module descriptor: it exports its one package. */
class ClusterTestkitModuleDescriptorTest {

    @Test
    void theDescriptorExportsTheTestKitPackage() {
        assertThat(ModuleSurface.check("dev.troupe.cluster.testkit")).containsExactly("dev.troupe.cluster.testkit");
    }
}
