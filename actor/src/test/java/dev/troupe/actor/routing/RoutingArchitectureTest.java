package dev.troupe.actor.routing;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The routing package is public API (pool routers): it uses the runtime's public API and the
 * routing SPI (what the cluster's group routers build on too) only, and the runtime's API depends
 * on neither. The routing SPI uses the runtime's public API only.
 */
@AnalyzeClasses(packages = "dev.troupe.actor")
class RoutingArchitectureTest {

    @ArchTest
    static final ArchRule signaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.actor.routing");

    @ArchTest
    static final ArchRule typesHideInternals = TroupeArchitecture.publicTypesHideInternals("dev.troupe.actor.routing");

    @ArchTest
    static final ArchRule spiSignaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.actor.spi.routing");

    @ArchTest
    static final ArchRule spiTypesHideInternals = TroupeArchitecture.publicTypesHideInternals("dev.troupe.actor.spi.routing");

    @ArchTest
    static final ArchRule usesThePublicApiAndTheRoutingSpiOnly = noClasses().that().resideInAPackage("dev.troupe.actor.routing..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.actor.internal..", "dev.troupe.actor.spi",
            "dev.troupe.actor.spi.instrumentation..");

    @ArchTest
    static final ArchRule theRoutingSpiUsesThePublicApiOnly = noClasses().that().resideInAPackage("dev.troupe.actor.spi.routing..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.actor.internal..", "dev.troupe.actor.routing..",
            "dev.troupe.actor.spi", "dev.troupe.actor.spi.instrumentation..");

    @ArchTest
    static final ArchRule theRuntimeApiDoesNotDependOnIt = noClasses().that().resideInAPackage("dev.troupe.actor")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.actor.routing..", "dev.troupe.actor.spi.routing..");
}
