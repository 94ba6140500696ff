package dev.troupe.cluster;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/** The cluster module's architecture, on its main and test classes. */
@AnalyzeClasses(packages = "dev.troupe.cluster")
class ClusterArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        final JavaClasses production = TroupeArchitecture.production(classes);
        assertThat(production.contain(Cluster.class)).isTrue();
        TroupeArchitecture.noPackageCycles().check(production);
    }

    @ArchTest
    static final ArchRule noSpringOrMicrometer = TroupeArchitecture.independentOf("dev.troupe.cluster",
        "org.springframework..", "io.micrometer..");

    @ArchTest
    static final ArchRule apiSignaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals(
        "dev.troupe.cluster", "dev.troupe.cluster.discovery", "dev.troupe.cluster.sharding", "dev.troupe.cluster.spi");

    @ArchTest
    static final ArchRule apiTypesHideInternals = TroupeArchitecture.publicTypesHideInternals(
        "dev.troupe.cluster", "dev.troupe.cluster.discovery", "dev.troupe.cluster.sharding", "dev.troupe.cluster.spi");

    /** The SPI (what a transport implements and carries) is written in the API's terms, never the runtime's. */
    @ArchTest
    static void theSpiUsesNoRuntime(JavaClasses classes) {
        noClasses().that().resideInAPackage("dev.troupe.cluster.spi..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.cluster.internal..", "dev.troupe.cluster.sharding..")
            .check(TroupeArchitecture.production(classes));
    }

    /** Membership knows nothing of sharding: sharding stands on Cluster, never the other way. */
    @ArchTest
    static void membershipKnowsNothingOfSharding(JavaClasses classes) {
        noClasses().that().resideInAnyPackage("dev.troupe.cluster", "dev.troupe.cluster.internal..", "dev.troupe.cluster.discovery..",
                "dev.troupe.cluster.spi..")
            .should().dependOnClassesThat().resideInAPackage("dev.troupe.cluster.sharding..")
            .check(TroupeArchitecture.production(classes));
    }

    /** Discovery providers only propose endpoints: they know nothing of membership. */
    @ArchTest
    static void discoveryKnowsNothingOfMembership(JavaClasses classes) {
        noClasses().that().resideInAPackage("dev.troupe.cluster.discovery..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.cluster", "dev.troupe.cluster.internal..",
                "dev.troupe.cluster.spi..")
            .check(TroupeArchitecture.production(classes));
    }

    /** The remote transport plugs in through ClusterTransport; the cluster does not reach into remote/. */
    @ArchTest
    static final ArchRule noRemoteInternals = noClasses().that().resideInAPackage("dev.troupe.cluster..")
        .should().dependOnClassesThat().resideInAPackage("dev.troupe.remote.internal..");
}
