package dev.troupe.testcontainers;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The image of the test node (src/test/docker/node/Dockerfile with the node's classes and libraries),
 * built at most once per test JVM under a fixed tag, so later runs reuse the engine's layer cache.
 */
final class NodeImage {

    private static String image;

    private NodeImage() {
    }

    static synchronized String get() {
        if (image == null) {
            final Path docker = Path.of(System.getProperty("it.dockerDir", "src/test/docker")).toAbsolutePath().normalize();
            final Path libs = Path.of(System.getProperty("it.nodeLibs", "target/node/lib")).toAbsolutePath().normalize();
            if (!Files.isDirectory(libs)) {
                throw new IllegalStateException("The test node's libraries are missing at " + libs
                        + ": run the tests with `./mvnw verify`, which copies them there");
            }
            final Path classes;
            try {
                classes = Path.of(NodeImage.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
            image = new ImageFromDockerfile("localhost/troupe-testcontainers-node:it", false)
                    .withFileFromPath("Dockerfile", docker.resolve("node/Dockerfile"))
                    .withFileFromPath("lib", libs)
                    .withFileFromPath("classes/dev/troupe/testcontainers/node", classes.resolve("dev/troupe/testcontainers/node"))
                    .get();
        }
        return image;
    }
}
