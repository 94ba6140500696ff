package dev.troupe.it;

import java.nio.file.Files;
import java.nio.file.Path;

import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The images the container tests run, built from the project's own Dockerfiles under docker/ (never
 * pulled): each one is built at most once per test JVM and kept under a fixed tag, so the next run
 * reuses the engine's layer cache and only the layers that changed are rebuilt.
 */
final class Images {

    /** docker/ in the source tree (set by the failsafe configuration; a fallback for IDE runs). */
    static final Path DOCKER_DIR = Path.of(System.getProperty("troupe.it.dockerDir", "../docker"))
            .toAbsolutePath().normalize();

    /** The sample app's executable jar, copied here by the build before the tests run. */
    static final Path APP_JAR = Path.of(System.getProperty("troupe.it.appJar", "target/docker-context/troupe-sample-app.jar"))
            .toAbsolutePath().normalize();

    /** The peer node's libraries, copied by the build (see the pom's peer-node-libs execution). */
    static final Path PEER_LIBS = Path.of(System.getProperty("troupe.it.peerLibs", "target/peer-node/lib"))
            .toAbsolutePath().normalize();

    private static String sampleApp;
    private static String prometheus;
    private static String peerNode;

    private Images() {
    }

    /** docker/sample-app/Dockerfile with the jar built on the host. */
    static synchronized String sampleApp() {
        if (sampleApp == null) {
            if (!Files.isRegularFile(APP_JAR)) {
                throw new IllegalStateException("The sample app's jar is missing at " + APP_JAR
                        + ": run the tests with `./mvnw verify` from the repository root, which packages"
                        + " sample-app and copies its jar there");
            }
            Path dir = DOCKER_DIR.resolve("sample-app");
            sampleApp = new ImageFromDockerfile("localhost/troupe-sample-app:it", false)
                    .withFileFromPath("Dockerfile", dir.resolve("Dockerfile"))
                    .withFileFromPath("troupe-sample-app-it.jar", APP_JAR)
                    .get();
        }
        return sampleApp;
    }

    /** docker/prometheus/Dockerfile: Debian's prometheus package on debian:bookworm-slim. */
    static synchronized String prometheus() {
        if (prometheus == null) {
            Path dir = DOCKER_DIR.resolve("prometheus");
            prometheus = new ImageFromDockerfile("localhost/troupe-prometheus:it", false)
                    .withFileFromPath("Dockerfile", dir.resolve("Dockerfile"))
                    .withFileFromPath("prometheus.yml", dir.resolve("prometheus.yml"))
                    .get();
        }
        return prometheus;
    }

    /**
     * The test application dev.troupe.it.peer (a Boot app with the Troupe starter and one actor bean)
     * on the sample app's image, which brings Debian's JRE and the non-root user.
     */
    static synchronized String peerNode() {
        if (peerNode == null) {
            String base = sampleApp();
            Path classes;
            try {
                classes = Path.of(dev.troupe.it.peer.PeerNodeApplication.class.getProtectionDomain().getCodeSource()
                        .getLocation().toURI());
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
            if (!Files.isDirectory(PEER_LIBS)) {
                throw new IllegalStateException("The peer node's libraries are missing at " + PEER_LIBS
                        + ": run the tests with `./mvnw verify`");
            }
            peerNode = new ImageFromDockerfile("localhost/troupe-peer-node:it", false)
                    .withFileFromPath("lib", PEER_LIBS)
                    .withFileFromPath("classes/dev/troupe/it/peer", classes.resolve("dev/troupe/it/peer"))
                    .withDockerfileFromBuilder(d -> d
                            .from(base)
                            .copy("lib", "/app/lib")
                            .copy("classes", "/app/classes")
                            .env("MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,prometheus")
                            .entryPoint("java", "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                                    "-XX:MaxRAMPercentage=75", "-cp", "/app/classes:/app/lib/*",
                                    "dev.troupe.it.peer.PeerNodeApplication")
                            .build())
                    .get();
        }
        return peerNode;
    }
}
