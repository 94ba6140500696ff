package dev.troupe.spring;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

/** The Spring test support's architecture, on its main and test classes. */
@AnalyzeClasses(packages = "dev.troupe.spring.test")
class SpringBootTestArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        TroupeArchitecture.noPackageCycles().check(TroupeArchitecture.production(classes));
    }
}
