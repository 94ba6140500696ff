package dev.troupe.actor.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.ActorSystem;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/** The actor module's architecture, on its main and test classes. */
@AnalyzeClasses(packages = "dev.troupe.actor")
class ActorArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        final JavaClasses production = TroupeArchitecture.production(classes);
        // the filter keeps the runtime and drops the tests, so the rule checks what it should
        assertThat(production.contain(ActorSystem.class)).isTrue();
        assertThat(production.contain(ActorArchitectureTest.class)).isFalse();
        TroupeArchitecture.noPackageCycles().check(production);
    }

    @ArchTest
    static final ArchRule noSpringNettyOrMicrometer = TroupeArchitecture.independentOf("dev.troupe.actor",
        "org.springframework..", "io.netty..", "io.micrometer..");

    @ArchTest
    static final ArchRule apiSignaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals(
        "dev.troupe.actor", "dev.troupe.actor.metrics", "dev.troupe.actor.spi", "dev.troupe.actor.spi.instrumentation",
        "dev.troupe.actor.testkit");

    @ArchTest
    static final ArchRule apiTypesHideInternals = TroupeArchitecture.publicTypesHideInternals(
        "dev.troupe.actor", "dev.troupe.actor.metrics", "dev.troupe.actor.spi", "dev.troupe.actor.spi.instrumentation",
        "dev.troupe.actor.testkit");

    /** The SPI is what siblings build on: it must not lean on the runtime's internals itself. */
    @ArchTest
    static final ArchRule spiIndependentOfInternals = noClasses().that().resideInAPackage("dev.troupe.actor.spi..")
        .should().dependOnClassesThat().resideInAPackage("dev.troupe.actor.internal..");

    /** The test kit becomes an artifact of its own: it uses the public API and the SPI only. */
    @ArchTest
    static final ArchRule testkitUsesApiAndSpiOnly = noClasses().that().resideInAPackage("dev.troupe.actor.testkit..")
        .should().dependOnClassesThat().resideInAPackage("dev.troupe.actor.internal..");
}
