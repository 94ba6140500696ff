package dev.troupe.testcontainers;

import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/**
 * PostgreSQL 15 from Debian's package, as an image built locally (never pulled): for tests on
 * machines that cannot reach a registry, or that must run the PostgreSQL their servers run. The
 * image starts like the official {@code postgres} one ({@code POSTGRES_USER}, {@code POSTGRES_PASSWORD},
 * {@code POSTGRES_DB}, {@code postgres -c ...} as the command, port 5432, the same readiness log
 * lines), so Testcontainers' PostgreSQL module and Spring Boot's {@code @ServiceConnection} take it
 * in place of {@code postgres}:
 *
 * <pre>{@code
 * @Container
 * @ServiceConnection
 * static PostgreSQLContainer postgres = new PostgreSQLContainer(
 *     DebianPostgreSQL.image().asCompatibleSubstituteFor("postgres"));
 * }</pre>
 *
 * The Dockerfile is the one docker/postgresql/ of the Troupe sources holds (also the compose
 * cluster's database), packaged in this jar. It is built from {@code debian:bookworm-slim} at most
 * once per JVM and kept under {@value #TAG}, so a later run reuses the engine's layer cache.
 */
public final class DebianPostgreSQL {

    /** The tag the image is built under. */
    public static final String TAG = "localhost/troupe-postgresql:15";

    private static final String RESOURCES = "dev/troupe/testcontainers/postgresql/";

    private static volatile DockerImageName image;

    private DebianPostgreSQL() {
    }

    /**
     * Builds the image (the first call in a JVM; the engine's cache makes a rebuild quick) and
     * names it.
     *
     * @return the image's name, to declare a compatible substitute for {@code postgres}
     */
    public static DockerImageName image() {
        DockerImageName built = image;
        if (built == null) {
            synchronized (DebianPostgreSQL.class) {
                built = image;
                if (built == null) {
                    final String tag = new ImageFromDockerfile(TAG, false)
                        .withFileFromClasspath("Dockerfile", RESOURCES + "Dockerfile")
                        .withFileFromClasspath("docker-entrypoint.sh", RESOURCES + "docker-entrypoint.sh")
                        .get();
                    built = DockerImageName.parse(tag);
                    image = built;
                }
            }
        }
        return built;
    }
}
