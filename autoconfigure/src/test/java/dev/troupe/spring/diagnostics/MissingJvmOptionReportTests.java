package dev.troupe.spring.diagnostics;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Boot application with the remote transport on, in a real JVM started without
 * {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED}: it fails to start with Boot's report,
 * whose Description says what is missing and whose Action gives the option and the snippet for each
 * launcher, before the transport listens, and with no stack trace and no Agrona error.
 */
class MissingJvmOptionReportTests {

    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(");

    @Test
    void runWhenTheJvmLacksTheOptionShouldFailWithTheReportAndNotListen() throws Exception {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NoJvmOptionApp.class.getName());
        for (String p : new String[] {"spring.main.web-application-type=none", "spring.cloud.zookeeper.enabled=false",
            "troupe.remote.enabled=true", "troupe.remote.bind-host=127.0.0.1", "troupe.remote.bind-port=0",
            "troupe.remote.secret=" + TroupeFailureReportTests.SECRET}) {
            cmd.add("--" + p);
        }
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        final Process p = pb.start();
        final StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && out.length() < 1_000_000) {
                out.append(line).append('\n');
            }
        } catch (IOException e) {
            p.destroyForcibly();
            throw e;
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the application exits").isTrue();
        final String all = out.toString();
        assertThat(p.exitValue()).as(all).isEqualTo(1);
        assertThat(all).contains("APPLICATION FAILED TO START", "Description:",
            "The remote transport cannot start: its buffers (Agrona) use jdk.internal.misc.Unsafe, and this JVM does not open"
                + " java.base/jdk.internal.misc to ALL-UNNAMED.",
            "Action:",
            "Start every JVM that runs the remote transport with --add-opens java.base/jdk.internal.misc=ALL-UNNAMED:",
            "<Add-Opens>java.base/jdk.internal.misc</Add-Opens>",
            "<argLine>--add-opens java.base/jdk.internal.misc=ALL-UNNAMED</argLine>",
            "<jvmArguments>--add-opens java.base/jdk.internal.misc=ALL-UNNAMED</jvmArguments>",
            "tasks.withType(JavaExec).configureEach",
            "tasks.withType(Test).configureEach",
            "ENTRYPOINT [\"java\", \"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED\"");
        assertThat(all).as("the transport never listened").doesNotContain("remote transport of troupe listening");
        assertThat(all).doesNotContain("IllegalAccessError", "NoClassDefFoundError");
        assertThat(STACK_FRAME.matcher(all).find()).as("no stack trace in:%n%s", all).isFalse();
    }
}
