package dev.troupe.actor.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceRule;

import java.util.LinkedHashSet;
import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The architecture rules every Troupe module checks on its own classes (main and test), from its
 * own test suite: see {@code docs/architecture.md}, "Modules". A module is the package
 * {@code dev.troupe.<name>} and everything below it.
 *
 * <ul>
 *   <li>{@link #internalsStayInTheirModule()}: no class uses another module's {@code internal}
 *       package; siblings of the actor runtime go through {@code dev.troupe.actor.spi}.</li>
 *   <li>{@link #noPackageCycles()}: no dependency cycle between packages, except that an API
 *       package may construct its own runtime, a module's root may take its SPI's providers, and
 *       the actor settings name the instrumentation SPI they install.</li>
 *   <li>{@link #independentOf}: a module stays free of the frameworks it must not depend on.</li>
 *   <li>{@link #publicSignaturesHideInternals}: public and protected members of the public
 *       types of API and SPI packages never name an {@code internal} type.</li>
 * </ul>
 */
public final class TroupeArchitecture {

    private static final String ROOT = "dev.troupe.";

    private TroupeArchitecture() {
    }

    /** @return the module a package belongs to, {@code dev.troupe.<name>}, or null outside Troupe */
    static String moduleOf(String packageName) {
        if (!packageName.startsWith(ROOT)) {
            return null;
        }
        final int dot = packageName.indexOf('.', ROOT.length());
        return dot < 0 ? packageName : packageName.substring(0, dot);
    }

    static boolean isInternal(String packageName) {
        return packageName.endsWith(".internal") || packageName.contains(".internal.");
    }

    /** @return no class depends on an {@code internal} package of another module */
    public static ArchRule internalsStayInTheirModule() {
        return classes().should(new ArchCondition<JavaClass>("not depend on another module's internal packages") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                final String from = moduleOf(origin.getPackageName());
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    final String target = d.getTargetClass().getPackageName();
                    if (isInternal(target) && moduleOf(target) != null && !moduleOf(target).equals(from)) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                }
            }
        }).because("siblings use a module's public API or its SPI (dev.troupe.actor.spi), never its internals");
    }

    /** API packages below a module's root with a runtime of their own below them ({@code <package>.internal}). */
    private static final String[] API_PACKAGES_WITH_A_RUNTIME = {"dev.troupe.cluster.sharding"};

    /** The one SPI package the runtime's API names: {@code ActorSystemSettings} installs its hooks. */
    private static final String INSTRUMENTATION_SPI = "dev.troupe.actor.spi.instrumentation";

    /** Troupe's modules, by root package. */
    private static final String[] MODULES = {"dev.troupe.actor", "dev.troupe.remote", "dev.troupe.cluster", "dev.troupe.spring",
        "dev.troupe.benchmarks", "dev.troupe.fixturelib"};

    /**
     * No cycles between the production packages below {@code dev.troupe}, with three kinds of edge
     * left out: an API package (a module's root, such as {@code ActorSystem.create},
     * {@code Behaviors.setup}, {@code ActorSystem.metrics()}, {@code RemoteTransport.start}, or an
     * API package below it, such as {@code dev.troupe.cluster.sharding}) using its own runtime (the
     * {@code internal} package below it) and, for the root, the views it hands out
     * ({@code metrics}); a module's root package taking the providers its SPI defines
     * ({@code Cluster.start(system, settings, ClusterTransport)}); and the actor API's settings
     * naming the instrumentation SPI they install ({@code ActorSystemSettings.Builder.instrumentation}).
     * Every other edge counts: the runtime may depend on the API and the SPI, the SPI on the API
     * only and never on the runtime, the views never on the runtime, and nothing on the test kit.
     *
     * <p>Check it on {@link #production(JavaClasses)}: tests live in the packages they test and
     * use the test kit, which is no cycle of the design.
     *
     * @return the rule
     */
    public static ArchRule noPackageCycles() {
        SliceRule rule = slices().matching("dev.troupe.(**)").should().beFreeOfCycles();
        for (String module : MODULES) {
            rule = rule.ignoreDependency(JavaClass.Predicates.resideInAPackage(module),
                JavaClass.Predicates.resideInAnyPackage(module + ".internal..", module + ".metrics..", module + ".spi.."));
        }
        for (String api : API_PACKAGES_WITH_A_RUNTIME) {
            rule = rule.ignoreDependency(JavaClass.Predicates.resideInAPackage(api),
                JavaClass.Predicates.resideInAPackage(api + ".internal.."));
        }
        // the settings name the instrumentation they install, as java.nio.file's FileSystem names its provider
        return rule.ignoreDependency(JavaClass.Predicates.resideInAPackage("dev.troupe.actor"),
            JavaClass.Predicates.resideInAPackage(INSTRUMENTATION_SPI));
    }

    /**
     * Leaves out the test kit's classes as the actor module's tests compile them (into
     * {@code actor/target/test-classes}, see the actor module's build). The actor module's test jar
     * leaves them out, but a reactor build that stops before packaging (say {@code ./mvnw -pl
     * actor-testkit -am test}) hands other modules the actor module's {@code test-classes} directory
     * instead: the kit's classes are then on the class path twice, and a module that analyzes the
     * kit's package would see that copy, from a {@code test-classes} directory, as a test class.
     */
    public static final class WithoutTestkitCopies implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("/actor/target/test-classes/dev/troupe/actor/testkit/");
        }
    }

    /**
     * @param classes imported classes
     * @return the production classes among them (not from a {@code test-classes} directory or a test jar)
     */
    public static JavaClasses production(JavaClasses classes) {
        return classes.that(new DescribedPredicate<JavaClass>("production classes") {
            @Override
            public boolean test(JavaClass c) {
                return c.getSource().map(s -> {
                    final String uri = s.getUri().toString();
                    return !uri.contains("/test-classes/") && !uri.contains("-tests.jar");
                }).orElse(true);
            }
        });
    }

    /**
     * @param module the module's root package, e.g. {@code dev.troupe.actor}
     * @param forbiddenPackages package patterns, e.g. {@code org.springframework..}
     * @return the module's classes depend on none of them
     */
    public static ArchRule independentOf(String module, String... forbiddenPackages) {
        return noClasses().that().resideInAPackage(module + "..")
            .should().dependOnClassesThat().resideInAnyPackage(forbiddenPackages);
    }

    /**
     * @param apiPackages the API and SPI packages (exact names, not patterns)
     * @return public and protected members of their public types name no internal type
     */
    public static ArchRule publicSignaturesHideInternals(String... apiPackages) {
        final Set<String> api = Set.of(apiPackages);
        final DescribedPredicate<JavaMember> exposed = new DescribedPredicate<JavaMember>("public API members") {
            @Override
            public boolean test(JavaMember m) {
                final JavaClass owner = m.getOwner();
                return api.contains(owner.getPackageName()) && isVisible(owner)
                    && (m.getModifiers().contains(JavaModifier.PUBLIC) || m.getModifiers().contains(JavaModifier.PROTECTED))
                    && !m.getModifiers().contains(JavaModifier.SYNTHETIC);
            }
        };
        return members().that(exposed).should(new ArchCondition<JavaMember>("not name internal types in their signatures") {
            @Override
            public void check(JavaMember m, ConditionEvents events) {
                for (JavaClass t : signatureTypes(m)) {
                    if (isInternal(t.getPackageName())) {
                        events.add(SimpleConditionEvent.violated(m, m.getFullName() + " exposes " + t.getName()));
                    }
                }
            }
        }).allowEmptyShould(true);
    }

    /** @return public types of API packages neither extend nor implement an internal type */
    public static ArchRule publicTypesHideInternals(String... apiPackages) {
        final Set<String> api = Set.of(apiPackages);
        return classes().that(new DescribedPredicate<JavaClass>("public types of the API packages") {
            @Override
            public boolean test(JavaClass c) {
                return api.contains(c.getPackageName()) && isVisible(c);
            }
        }).should(new ArchCondition<JavaClass>("not extend or implement internal types") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (JavaClass s : c.getAllRawSuperclasses()) {
                    if (isInternal(s.getPackageName())) {
                        events.add(SimpleConditionEvent.violated(c, c.getName() + " extends " + s.getName()));
                    }
                }
                for (JavaClass i : c.getAllRawInterfaces()) {
                    if (isInternal(i.getPackageName())) {
                        events.add(SimpleConditionEvent.violated(c, c.getName() + " implements " + i.getName()));
                    }
                }
            }
        }).allowEmptyShould(true);
    }

    private static boolean isVisible(JavaClass c) {
        for (JavaClass x = c; x != null; x = x.getEnclosingClass().orElse(null)) {
            if (!x.getModifiers().contains(JavaModifier.PUBLIC) && !x.getModifiers().contains(JavaModifier.PROTECTED)) {
                return false;
            }
        }
        return true;
    }

    private static Set<JavaClass> signatureTypes(JavaMember m) {
        final Set<JavaClass> out = new LinkedHashSet<>();
        if (m instanceof JavaField) {
            out.addAll(((JavaField) m).getType().getAllInvolvedRawTypes());
        } else if (m instanceof JavaCodeUnit) {
            final JavaCodeUnit cu = (JavaCodeUnit) m;
            out.addAll(cu.getReturnType().getAllInvolvedRawTypes());
            for (JavaType p : cu.getParameterTypes()) {
                out.addAll(p.getAllInvolvedRawTypes());
            }
            for (JavaClass thrown : cu.getExceptionTypes()) {
                out.add(thrown);
            }
        }
        return out;
    }
}
