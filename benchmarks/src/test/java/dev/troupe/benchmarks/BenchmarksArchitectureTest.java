package dev.troupe.benchmarks;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.troupe.actor.architecture.TroupeArchitecture;

/** Benchmarks measure what users get: the public API (and the SPI), never a module's internals. */
@AnalyzeClasses(packages = "dev.troupe.benchmarks")
class BenchmarksArchitectureTest {

    @ArchTest
    static final ArchRule internalsStayInTheirModule = TroupeArchitecture.internalsStayInTheirModule();

    @ArchTest
    static void noPackageCycles(JavaClasses classes) {
        TroupeArchitecture.noPackageCycles().check(TroupeArchitecture.production(classes));
    }
}
