package dev.troupe.testsupport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM that runs a main class from this JVM's class path: the
 * {@code java} of {@code java.home}, the options every Troupe JVM needs ({@code --add-opens} for
 * Agrona; on JDK 24 and later also Netty's Unsafe and native access, so the child runs the same
 * code as on 17), the caller's JVM options, the class path, the main class and its arguments.
 * Multi-JVM tests (and the benchmarks' multi-process rigs) start their children with it.
 */
public final class JavaCommand {

    private JavaCommand() {
    }

    /**
     * @param mainClass the main class, on this JVM's class path
     * @param jvmOptions JVM options ({@code -Xmx128m}, {@code -Dkey=value})
     * @param args the main's arguments
     * @return the command, to extend or hand to a {@link ProcessBuilder}
     */
    public static List<String> of(Class<?> mainClass, List<String> jvmOptions, String... args) {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--add-opens");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        if (Runtime.version().feature() >= 24) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }
}
