package dev.troupe.actor.routing;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The routing package is public API (pool routers) and what the cluster's group routers build on:
 * it uses the runtime's public API only, and the runtime's API does not depend on it.
 */
@AnalyzeClasses(packages = "dev.troupe.actor")
class RoutingArchitectureTest {

    @ArchTest
    static final ArchRule signaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals("dev.troupe.actor.routing");

    @ArchTest
    static final ArchRule typesHideInternals = TroupeArchitecture.publicTypesHideInternals("dev.troupe.actor.routing");

    @ArchTest
    static final ArchRule usesThePublicApiOnly = noClasses().that().resideInAPackage("dev.troupe.actor.routing..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.troupe.actor.internal..", "dev.troupe.actor.spi..");

    @ArchTest
    static final ArchRule theRuntimeApiDoesNotDependOnIt = noClasses().that().resideInAPackage("dev.troupe.actor")
        .should().dependOnClassesThat().resideInAPackage("dev.troupe.actor.routing..");
}
