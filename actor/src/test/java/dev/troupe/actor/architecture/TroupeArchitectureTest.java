package dev.troupe.actor.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shared rules catch what they are for, on fixture classes made to break them. */
class TroupeArchitectureTest {

    private static final JavaClasses FIXTURES = new ClassFileImporter().importPackages("dev.troupe.fixturelib", "dev.troupe.fixtureuser");

    @Test
    void anotherModulesInternalsAreCaught() {
        assertThatThrownBy(() -> TroupeArchitecture.internalsStayInTheirModule().check(FIXTURES))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("UsesSecret")
            .hasMessageNotContaining("Hook.secret");
    }

    @Test
    void internalTypesInPublicSignaturesAreCaught() {
        assertThatThrownBy(() -> TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.fixturelib").check(FIXTURES))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("Api.self()");
    }

    @Test
    void aCycleThroughTheSpiIsCaughtButTheApiMayConstructItsRuntime() {
        assertThatThrownBy(() -> TroupeArchitecture.noPackageCycles().check(FIXTURES))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("fixturelib.spi")
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("Slice fixturelib -> "));
    }
}
