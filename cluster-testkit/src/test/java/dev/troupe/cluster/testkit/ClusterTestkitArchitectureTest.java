package dev.troupe.cluster.testkit;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/** The cluster test kit's architecture, on its main and test classes: the cluster's public API and SPI only. */
@AnalyzeClasses(packages = "dev.troupe.cluster.testkit")
class ClusterTestkitArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    /** The test kit shares the cluster's package root but is a module of its own: no internals of the cluster either. */
    @ArchTest
    static final ArchRule usesApiAndSpiOnly = noClasses().that().resideInAPackage("dev.troupe.cluster.testkit..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.cluster.internal..", "dev.troupe.cluster.sharding.internal..");

    @ArchTest
    static final ArchRule noSpring = TroupeArchitecture.independentOf("dev.troupe.cluster.testkit",
        "org.springframework..", "io.netty..", "io.micrometer..", "dev.troupe.remote..");

    @ArchTest
    static final ArchRule signaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.cluster.testkit");

    @ArchTest
    static final ArchRule typesHideInternals = TroupeArchitecture.publicTypesHideInternals("dev.troupe.cluster.testkit");

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        final JavaClasses production = TroupeArchitecture.production(classes);
        assertThat(production.contain(InMemoryClusterNetwork.class)).isTrue();
        assertThat(production.contain(ClusterTestkitArchitectureTest.class)).isFalse();
        TroupeArchitecture.noPackageCycles().check(production);
    }
}
