package dev.troupe.remote;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

/** The remote module's architecture, on its main and test classes. */
@AnalyzeClasses(packages = "dev.troupe.remote")
class RemoteArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        TroupeArchitecture.noPackageCycles().check(TroupeArchitecture.production(classes));
    }

    @ArchTest
    static final ArchRule noSpringOrMicrometer = TroupeArchitecture.independentOf("dev.troupe.remote",
        "org.springframework..", "io.micrometer..");

    @ArchTest
    static final ArchRule apiSignaturesHideInternals = TroupeArchitecture.publicSignaturesHideInternals(
        "dev.troupe.remote", "dev.troupe.remote.jackson");

    @ArchTest
    static final ArchRule apiTypesHideInternals = TroupeArchitecture.publicTypesHideInternals(
        "dev.troupe.remote", "dev.troupe.remote.jackson");
}
