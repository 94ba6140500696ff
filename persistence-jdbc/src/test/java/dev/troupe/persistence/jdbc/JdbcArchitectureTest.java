package dev.troupe.persistence.jdbc;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/** The JDBC stores' architecture: they stand on the persistence SPI and API, never its runtime. */
@AnalyzeClasses(packages = "dev.troupe.persistence.jdbc")
class JdbcArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    @ArchTest
    static final ArchRule noSpringNettyOrMicrometer = TroupeArchitecture.independentOf("dev.troupe.persistence.jdbc",
        "org.springframework..", "io.netty..", "io.micrometer..");

    /** Only the SPI and API of troupe-persistence: its runtime, in-memory store and test kit are not the stores' business. */
    @ArchTest
    static final ArchRule onlyThePersistenceSpi = noClasses().that().resideInAPackage("dev.troupe.persistence.jdbc..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.persistence.internal..", "dev.troupe.persistence.inmemory..",
            "dev.troupe.persistence.testkit..");

    @ArchTest
    static final ArchRule remoteOnlyForSerializers = noClasses().that().resideInAPackage("dev.troupe.persistence.jdbc..")
        .should().dependOnClassesThat().resideInAPackage("dev.troupe.remote.internal..");

    @ArchTest
    static void theStoreIsHere(JavaClasses classes) {
        assertThat(TroupeArchitecture.production(classes).contain(JdbcStore.class)).isTrue();
    }

    @ArchTest
    static final ArchRule apiSignaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.persistence.jdbc");
}
