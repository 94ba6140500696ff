package dev.troupe.persistence;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/** The persistence module's architecture, on its main and test classes. */
@AnalyzeClasses(packages = "dev.troupe.persistence")
class PersistenceArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    /** No Spring, Netty, Micrometer or JDBC: the stores that need JDBC live in troupe-persistence-jdbc. */
    @ArchTest
    static final ArchRule independentOfFrameworks = TroupeArchitecture.independentOf("dev.troupe.persistence",
        "org.springframework..", "io.netty..", "io.micrometer..", "java.sql..", "javax.sql..");

    /** From troupe-remote, only the serializer SPI: never the transport. */
    @ArchTest
    static final ArchRule remoteOnlyForSerializers = noClasses().that().resideInAPackage("dev.troupe.persistence..")
        .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.troupe.remote..")
            .and(com.tngtech.archunit.base.DescribedPredicate.not(com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameStartingWith("dev.troupe.remote.Serializer"))));

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        final JavaClasses production = TroupeArchitecture.production(classes);
        assertThat(production.contain(EventSourcedBehavior.class)).isTrue();
        // as for every module: the root package may use its runtime (internal); nothing else may cycle
        slices().matching("dev.troupe.persistence.(**)").should().beFreeOfCycles()
            .ignoreDependency(JavaClass.Predicates.resideInAPackage("dev.troupe.persistence"),
                JavaClass.Predicates.resideInAPackage("dev.troupe.persistence.internal.."))
            .check(production);
    }

    /** The SPI stands on the API only. */
    @ArchTest
    static final ArchRule spiUsesNoRuntime = noClasses().that().resideInAPackage("dev.troupe.persistence.spi..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.persistence.internal..", "dev.troupe.persistence.inmemory..",
            "dev.troupe.persistence.testkit..");

    @ArchTest
    static final ArchRule apiSignaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals(
        "dev.troupe.persistence", "dev.troupe.persistence.spi", "dev.troupe.persistence.inmemory", "dev.troupe.persistence.testkit");
}
