package dev.troupe.actor.testkit;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/** The test kit's architecture, on its main and test classes: the public API and the SPI only. */
@AnalyzeClasses(packages = "dev.troupe.actor.testkit", importOptions = TroupeArchitecture.WithoutTestkitCopies.class)
class TestkitArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    /** The runtime's internals are the actor module's; the test kit is a module of its own that shares the package root. */
    @ArchTest
    static final ArchRule usesApiAndSpiOnly = noClasses().that().resideInAPackage("dev.troupe.actor.testkit..")
        .should().dependOnClassesThat().resideInAPackage("dev.troupe.actor.internal..");

    @ArchTest
    static final ArchRule noSpring = TroupeArchitecture.independentOf("dev.troupe.actor.testkit",
        "org.springframework..", "io.netty..", "io.micrometer..");

    @ArchTest
    static final ArchRule signaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.actor.testkit");

    @ArchTest
    static final ArchRule typesHideInternals = TroupeArchitecture.publicTypesHideInternals("dev.troupe.actor.testkit");

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        final JavaClasses production = TroupeArchitecture.production(classes);
        assertThat(production.contain(ActorTestKit.class)).isTrue();
        assertThat(production.contain(TestkitArchitectureTest.class)).isFalse();
        TroupeArchitecture.noPackageCycles().check(production);
    }
}
