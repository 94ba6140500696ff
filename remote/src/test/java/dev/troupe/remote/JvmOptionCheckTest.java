package dev.troupe.remote;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transport's check of the JVM option its buffers need, in a real JVM started without it
 * ({@link NoJvmOptionNode}): a local system runs, {@link RemoteTransport#start} refuses before it
 * binds, with a message that gives the option and how to set it, and a second attempt fails the
 * same way (no failed class initialization left behind). In this JVM (which has the option) the
 * check passes: every other transport test starts transports.
 */
class JvmOptionCheckTest {

    @Test
    void withoutTheOptionTheTransportRefusesToStartAndTheJvmGoesOn() throws Exception {
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NoJvmOptionNode.class.getName());
        cmd.add(Integer.toString(port));
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        // nothing may hand the child the option behind the test's back
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        final Process p = pb.start();
        final List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && out.size() < 10_000) {
                out.add(line);
            }
        } catch (IOException e) {
            p.destroyForcibly();
            throw e;
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child exits").isTrue();
        final String all = String.join("\n", out);
        assertThat(p.exitValue()).as(all).isZero();
        final String option = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";
        assertThat(out).as(all).contains("REFUSED " + option, "REFUSED-AGAIN " + option, "PORT-FREE " + port, "TERMINATED");
        assertThat(out.stream().filter(l -> l.startsWith("LOCAL-OK")).count()).as(all).isEqualTo(2);
        final String message = all.substring(all.indexOf("MESSAGE-BEGIN"), all.indexOf("MESSAGE-END"));
        assertThat(message).contains("this JVM does not open java.base/jdk.internal.misc to ALL-UNNAMED",
            "java " + option + " -jar app.jar",
            "<Add-Opens>java.base/jdk.internal.misc</Add-Opens>",
            "<argLine>" + option + "</argLine>",
            "<jvmArguments>" + option + "</jvmArguments>",
            "tasks.withType(JavaExec).configureEach { jvmArgs('--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED') }",
            "tasks.withType(Test).configureEach",
            "attributes('Add-Opens': 'java.base/jdk.internal.misc')",
            "ENTRYPOINT [\"java\", \"--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED\", \"-jar\", \"/app/app.jar\"]");
        assertThat(all).doesNotContain("IllegalAccessError", "NoClassDefFoundError", "UNEXPECTED");
    }
}
