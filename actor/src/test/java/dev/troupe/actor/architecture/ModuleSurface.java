package dev.troupe.actor.architecture;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The check behind each JPMS module's descriptor (see {@code docs/architecture.md}, "Module
 * descriptors"): a Troupe module exports every package but its {@code internal} ones, opens none,
 * and the compiler enforces it. For the latter a module that requires the Troupe module is compiled
 * (in process, with {@code javac}) against what the test's class path holds: its imports of every
 * exported package compile, and each of its imports of an {@code internal} package is an error.
 *
 * <p>The tests run on the class path, so the module path is made from it: every explicit module on
 * it (a directory or jar with a {@code module-info.class}) and the automatic modules the Troupe
 * modules require by name.
 */
public final class ModuleSurface {

    private ModuleSurface() {
    }

    /**
     * @param moduleName the module to check, e.g. {@code dev.troupe.actor}
     * @return the packages it exports (for the caller to state what it expects)
     * @throws AssertionError if the descriptor exports an internal package, hides another one, opens
     *         a package, or if the compiler lets a module reach an internal package or not an exported one
     */
    public static Set<String> check(String moduleName) {
        final Map<String, ModuleReference> modules = modulePath(moduleName);
        final ModuleReference ref = modules.get(moduleName);
        if (ref == null) {
            throw new AssertionError("no module " + moduleName + " on the class path");
        }
        final ModuleDescriptor d = ref.descriptor();
        if (d.isAutomatic()) {
            throw new AssertionError(moduleName + " has no module-info");
        }
        if (d.isOpen() || !d.opens().isEmpty()) {
            throw new AssertionError(moduleName + " opens packages: " + d.opens());
        }
        final Set<String> exported = new TreeSet<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            if (e.isQualified()) {
                throw new AssertionError(moduleName + " exports " + e.source() + " to " + e.targets() + " only: every module reads the API and the SPI alike");
            }
            exported.add(e.source());
        }
        final Set<String> internal = new TreeSet<>();
        final Set<String> expected = new TreeSet<>();
        for (String p : d.packages()) {
            if (p.endsWith(".internal") || p.contains(".internal.")) {
                internal.add(p);
            } else {
                expected.add(p);
            }
        }
        if (!exported.equals(expected)) {
            throw new AssertionError(moduleName + " must export every package but the internal ones: exports " + exported
                + ", has " + expected + " besides " + internal);
        }
        final String path = joined(modules);

        // one compilation (javac is the slow part): every exported package must import, no internal one may
        final StringBuilder imports = new StringBuilder();
        for (String p : exported) {
            imports.append("import ").append(p).append(".*;\n");
        }
        for (String p : internal) {
            imports.append("import ").append(p).append(".*;\n");
        }
        final List<String> errors = compile(moduleName, path, imports.toString());
        for (String p : exported) {
            for (String e : errors) {
                if (e.contains("package " + p + " ")) {
                    throw new AssertionError("a module requiring " + moduleName + " cannot import its exported package " + p + ": " + e);
                }
            }
        }
        for (String p : internal) {
            if (errors.stream().noneMatch(e -> e.contains("package " + p + " ") && e.contains("not visible"))) {
                throw new AssertionError("a module requiring " + moduleName + " compiles against " + p + ": " + errors);
            }
        }
        if (errors.size() != internal.size()) {
            throw new AssertionError("errors other than the refused internal packages " + internal + ": " + errors);
        }
        return exported;
    }

    /**
     * Runs a program on the module path, as an application that requires {@code moduleName} would
     * run: a module {@code surface.probe} holding {@code surface.probe.Main} (the source given), in a
     * JVM of its own, on the module path {@code moduleName} needs and nothing else.
     *
     * @param moduleName the module the program requires
     * @param mainSource the source of {@code surface.probe.Main}
     * @param jvmOptions options of the JVM (the opens a module-path application gives itself)
     * @param timeout how long the program may run
     * @return what the program printed, standard output and error together
     * @throws AssertionError if it does not compile, does not end in time, or ends with a non-zero status
     */
    public static String runOnModulePath(String moduleName, String mainSource, List<String> jvmOptions, Duration timeout) {
        final Path dir = temporaryDirectory();
        try {
            final String path = joined(modulePath(moduleName));
            final List<String> errors = compile(dir, moduleName, path, "Main", mainSource);
            if (!errors.isEmpty()) {
                throw new AssertionError("the program does not compile against " + moduleName + ": " + errors);
            }
            final List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.addAll(List.of("--module-path", path + File.pathSeparator + dir.resolve("out"), "-m", "surface.probe/surface.probe.Main"));
            final Path log = dir.resolve("output.txt");
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    throw new AssertionError("the program on the module path did not end within " + timeout + ": " + read(log));
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            final String output = read(log);
            if (process.exitValue() != 0) {
                throw new AssertionError("the program on the module path ended with " + process.exitValue() + ": " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(dir);
        }
    }

    /** Compiles a module {@code surface.probe} that requires the module and holds one class with these imports. */
    private static List<String> compile(String moduleName, String modulePath, String imports) {
        final Path dir = temporaryDirectory();
        try {
            return compile(dir, moduleName, modulePath, "Probe", imports + "\nclass Probe {\n}\n");
        } finally {
            delete(dir);
        }
    }

    /** Compiles module {@code surface.probe} (requiring the module) with class {@code surface.probe.<name>} into {@code dir/out}. */
    private static List<String> compile(Path dir, String moduleName, String modulePath, String className, String body) {
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        try {
            final Path src = dir.resolve("src");
            final Path pkg = Files.createDirectories(src.resolve("surface/probe"));
            Files.writeString(src.resolve("module-info.java"), "module surface.probe {\n    requires " + moduleName + ";\n}\n",
                StandardCharsets.UTF_8);
            final Path source = pkg.resolve(className + ".java");
            Files.writeString(source, "package surface.probe;\n\n" + body, StandardCharsets.UTF_8);
            final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
                final List<String> options = List.of("--module-path", modulePath, "-d", dir.resolve("out").toString(),
                    "-proc:none", "-Xlint:-options");
                javac.getTask(null, files, diagnostics, options, null,
                    files.getJavaFileObjects(src.resolve("module-info.java"), source)).call();
            }
            final List<String> errors = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(diagnostic.getMessage(Locale.ROOT));
                }
            }
            return errors;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String joined(Map<String, ModuleReference> modules) {
        return modules.values().stream().map(m -> Path.of(m.location().orElseThrow()).toString())
            .collect(Collectors.joining(File.pathSeparator));
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("module-surface");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

    /**
     * @param root the module an application would require
     * @return the module path such an application has, made of the test's class path: the explicit
     *         modules on it (a directory or jar with a {@code module-info.class}) and the automatic
     *         ones with a declared name (Agrona), as far as {@code root} requires them, transitively
     */
    private static Map<String, ModuleReference> modulePath(String root) {
        final Map<String, ModuleReference> observable = new LinkedHashMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            final Path p = Path.of(entry);
            if (Files.isDirectory(p) && !Files.exists(p.resolve("module-info.class"))) {
                continue; // test classes and other plain class directories are no modules
            }
            find(p).ifPresent(m -> observable.putIfAbsent(m.descriptor().name(), m));
        }
        final Map<String, ModuleReference> path = new LinkedHashMap<>();
        final ArrayDeque<String> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            final ModuleReference m = observable.get(todo.poll());
            if (m == null || path.putIfAbsent(m.descriptor().name(), m) != null) {
                continue; // a JDK module, a static dependency left out, or one already taken
            }
            for (ModuleDescriptor.Requires r : m.descriptor().requires()) {
                if (!r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
                    todo.add(r.name());
                }
            }
        }
        return path;
    }

    private static Optional<ModuleReference> find(Path entry) {
        try {
            final Set<ModuleReference> all = ModuleFinder.of(entry).findAll();
            return all.size() == 1 ? Optional.of(all.iterator().next()) : Optional.empty();
        } catch (FindException | SecurityException e) {
            return Optional.empty(); // a jar the module system cannot name: not one the Troupe modules require
        }
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind
        }
    }
}
