package dev.troupe.remote;

import java.util.Objects;

/**
 * The JVM does not give the remote transport's buffers the access they need, so
 * {@link RemoteTransport#start} refused to start (before it bound its port). The transport's
 * buffers and ring buffers are Agrona 2.x's, which read and write memory through
 * {@code jdk.internal.misc.Unsafe}; the JVM opens that package only when started with
 * {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED} (or the manifest entry
 * {@code Add-Opens: java.base/jdk.internal.misc} of an executable jar). A local actor system
 * needs no such option; only the transport does.
 *
 * <p>{@link #description()} says what is missing, {@link #action()} gives the option and the
 * snippets that set it for each way of launching a JVM (the Spring Boot starter's failure report
 * prints both); the message is both together.
 */
public final class MissingJvmOptionException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The package the transport's buffers need. */
    public static final String PACKAGE = "java.base/jdk.internal.misc";

    private final String jvmOption;
    private final String description;
    private final String action;

    /**
     * @param target the module the package must be opened to: {@code ALL-UNNAMED} on the class
     *               path, the buffers' module name on the module path
     * @param cause what failed when the buffers were first used, or null if the JVM's module
     *              graph already showed that the package is not open
     */
    public MissingJvmOptionException(String target, Throwable cause) {
        this(target, describe(target, cause), cause);
    }

    private MissingJvmOptionException(String target, String description, Throwable cause) {
        super(description + System.lineSeparator() + System.lineSeparator() + action(target), cause);
        this.jvmOption = "--add-opens " + PACKAGE + "=" + Objects.requireNonNull(target, "target");
        this.description = description;
        this.action = action(target);
    }

    /** @return the JVM option that gives the access, {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED} */
    public String jvmOption() {
        return jvmOption;
    }

    /** @return what is missing and why the transport needs it */
    public String description() {
        return description;
    }

    /** @return the JVM option and how to set it when launching with java, Maven, Gradle or a container */
    public String action() {
        return action;
    }

    private static String describe(String target, Throwable cause) {
        final String why = cause == null
            ? "this JVM does not open " + PACKAGE + " to " + target
            : "using them failed: " + cause;
        return "The remote transport cannot start: its buffers (Agrona) use jdk.internal.misc.Unsafe, and " + why + ".";
    }

    private static String action(String target) {
        final String option = "--add-opens " + PACKAGE + "=" + target;
        final String optionEq = "--add-opens=" + PACKAGE + "=" + target;
        final String n = System.lineSeparator();
        return "Start every JVM that runs the remote transport with " + option + ":" + n
            + "  java -jar:               java " + option + " -jar app.jar" + n
            + "  executable jar (Maven):  maven-jar-plugin <configuration><archive><manifestEntries>"
            + "<Add-Opens>java.base/jdk.internal.misc</Add-Opens></manifestEntries></archive></configuration>"
            + " (spring-boot-maven-plugin's repackaged jar keeps the entry, and java -jar honours it)" + n
            + "  executable jar (Gradle): tasks.named('bootJar') { manifest { attributes('Add-Opens': 'java.base/jdk.internal.misc') } }" + n
            + "  tests (Maven):           maven-surefire-plugin and maven-failsafe-plugin <configuration><argLine>" + option
            + "</argLine></configuration> (after @{argLine} if JaCoCo sets one)" + n
            + "  spring-boot:run:         spring-boot-maven-plugin <configuration><jvmArguments>" + option + "</jvmArguments></configuration>" + n
            + "  Gradle bootRun, test:    tasks.withType(JavaExec).configureEach { jvmArgs('" + optionEq + "') }" + n
            + "                           tasks.withType(Test).configureEach { jvmArgs('" + optionEq + "') }" + n
            + "                           (Kotlin DSL: tasks.withType<JavaExec>().configureEach { jvmArgs(\"" + optionEq + "\") }, likewise withType<Test>())" + n
            + "  Dockerfile:              ENTRYPOINT [\"java\", \"" + optionEq + "\", \"-jar\", \"/app/app.jar\"]" + n
            + "                           (or ENV JDK_JAVA_OPTIONS=\"" + optionEq + "\", read by every java launcher in the image)";
    }
}
