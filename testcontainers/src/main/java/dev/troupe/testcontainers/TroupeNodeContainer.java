package dev.troupe.testcontainers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Future;

import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * A Troupe node (any Spring Boot application built with the Troupe starter) in a container, for a
 * test that talks to it over the remote transport. In a {@code @SpringBootTest}, {@code @ServiceConnection}
 * makes it a peer of the test's own node (named {@link #withPeerName(String) peerName}, the system
 * name by default, with the container's secret), so a remote ref can name it:
 *
 * <pre>{@code
 * @SpringBootTest(properties = {
 *     "troupe.remote.bind-port=0",
 *     "troupe.remote.refs.inventory.peer=inventory",
 *     "troupe.remote.refs.inventory.path=/user/inventory",
 *     "troupe.remote.refs.inventory.message-type=com.acme.Inventory$Command"})
 * @Testcontainers
 * class InventoryTests {
 *     @Container
 *     @ServiceConnection
 *     static TroupeNodeContainer inventory = new TroupeNodeContainer("acme/inventory:latest")
 *             .withSystemName("inventory")
 *             .withSecret(SECRET);
 *
 *     @Autowired
 *     ActorRef<Inventory.Command> inventoryRef;   // the remote actor in the container
 * }
 * }</pre>
 *
 * <p>Without Spring, a test starts its own transport with the same secret and the serializers of the
 * messages, and resolves {@link #actorPath(String)} through it.
 *
 * <p>The remote transport connects in both directions (each node opens its own outbound connection
 * for what it sends, replies included), so the test's node must reach the container's and the
 * container's must reach the test's. The container therefore shares the host's network namespace
 * and both nodes listen on 127.0.0.1 only, on ports picked free on the host: nothing is published
 * beyond loopback, and actor paths are the same from either side. Host networking needs a Linux
 * Docker engine or Podman (Docker Desktop only has it behind a setting).
 *
 * <p>The application is configured through Spring Boot's environment variables:
 * {@code SERVER_ADDRESS}, {@code SERVER_PORT}, {@code TROUPE_SYSTEMNAME},
 * {@code TROUPE_REMOTE_ENABLED}, {@code TROUPE_REMOTE_BINDHOST}, {@code TROUPE_REMOTE_BINDPORT},
 * {@code TROUPE_REMOTE_CANONICALHOST} and {@code TROUPE_REMOTE_SECRET}. The container counts as
 * started once {@code /actuator/health} answers 200, so the application must expose Actuator's
 * health endpoint on its server port.
 */
public class TroupeNodeContainer extends GenericContainer<TroupeNodeContainer> {

    /** The loopback address both nodes listen on. */
    public static final String HOST = "127.0.0.1";

    private final int httpPort = freePort();
    private final int remotePort = freePort();
    private String systemName = "troupe";
    private String peerName;
    private String secret;
    private Duration startupTimeout = Duration.ofMinutes(3);

    /** @param image an image of a Boot application that uses the Troupe starter */
    public TroupeNodeContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** @param image an image of a Boot application that uses the Troupe starter */
    public TroupeNodeContainer(DockerImageName image) {
        super(image);
    }

    /** @param image an image being built, such as an {@code ImageFromDockerfile} */
    public TroupeNodeContainer(Future<String> image) {
        super(image);
    }

    /**
     * @param name the actor system's name ({@code troupe.system-name}); part of every actor path
     * @return this container
     */
    public TroupeNodeContainer withSystemName(String name) {
        this.systemName = Objects.requireNonNull(name, "name");
        return self();
    }

    /**
     * @param name the name under which a {@code @ServiceConnection} makes the node a peer of the test's
     *        node, for {@code troupe.remote.refs.<bean>.peer} (the system name by default)
     * @return this container
     */
    public TroupeNodeContainer withPeerName(String name) {
        this.peerName = Objects.requireNonNull(name, "name");
        return self();
    }

    /**
     * @param secret the shared secret of the remote handshake ({@code troupe.remote.secret}, at least
     *        16 bytes); the test's transport must use the same one
     * @return this container
     */
    public TroupeNodeContainer withSecret(String secret) {
        this.secret = Objects.requireNonNull(secret, "secret");
        return self();
    }

    /**
     * @param timeout how long the application may take to report healthy (three minutes by default)
     * @return this container
     */
    public TroupeNodeContainer withTroupeStartupTimeout(Duration timeout) {
        this.startupTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    @Override
    protected void configure() {
        if (secret == null) {
            throw new IllegalStateException("TroupeNodeContainer needs withSecret(...): the remote transport refuses"
                    + " to run without a shared secret (troupe.remote.secret)");
        }
        withNetworkMode("host");
        withEnv("SERVER_ADDRESS", HOST);
        withEnv("SERVER_PORT", Integer.toString(httpPort));
        withEnv("TROUPE_SYSTEMNAME", systemName);
        withEnv("TROUPE_REMOTE_ENABLED", "true");
        withEnv("TROUPE_REMOTE_BINDHOST", HOST);
        withEnv("TROUPE_REMOTE_BINDPORT", Integer.toString(remotePort));
        withEnv("TROUPE_REMOTE_CANONICALHOST", HOST);
        withEnv("TROUPE_REMOTE_SECRET", secret);
        waitingFor(new HealthEndpointWait().withStartupTimeout(startupTimeout));
    }

    /** @return the actor system's name */
    public String getSystemName() {
        return systemName;
    }

    /** @return the peer name a {@code @ServiceConnection} gives the node: {@link #withPeerName(String)}, else the system name */
    public String getPeerName() {
        return peerName != null ? peerName : systemName;
    }

    /** @return the shared secret the node proves in the handshake */
    public String getSecret() {
        return secret;
    }

    /** @return the port of the node's remote transport, on 127.0.0.1 */
    public int getRemotePort() {
        return remotePort;
    }

    /** @return the port of the node's HTTP server (its API and Actuator), on 127.0.0.1 */
    public int getHttpPort() {
        return httpPort;
    }

    /** @return the node's address as {@code troupe.remote.peers.*} takes it: {@code system@127.0.0.1:port} */
    public String getNodeAddress() {
        return systemName + "@" + HOST + ":" + remotePort;
    }

    /**
     * @param actorName the name of a top-level actor, such as a {@code @TroupeActor} bean's
     * @return its full path, {@code troupe://system@127.0.0.1:port/user/actorName}, for
     *         {@code RemoteTransport.actorRef}
     */
    public String actorPath(String actorName) {
        String name = actorName.startsWith("/") ? actorName.substring(1) : actorName;
        return "troupe://" + getNodeAddress() + (name.startsWith("user/") || name.startsWith("system/") ? "/" : "/user/") + name;
    }

    /**
     * @param path a path on the node's HTTP server, such as {@code /actuator/prometheus}
     * @return its URL
     */
    public String httpUrl(String path) {
        return "http://" + HOST + ":" + httpPort + (path.startsWith("/") ? path : "/" + path);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + HOST, e);
        }
    }

    /** Polls the node's {@code /actuator/health} on loopback until it answers 200 (no mapped port with host networking). */
    private final class HealthEndpointWait extends AbstractWaitStrategy {

        @Override
        protected void waitUntilReady() {
            long deadline = System.nanoTime() + startupTimeout.toNanos();
            String url = httpUrl("/actuator/health");
            String last = "no answer yet";
            while (System.nanoTime() - deadline < 0) {
                if (!isRunning()) {
                    throw new ContainerLaunchException("Troupe node " + getNodeAddress() + " exited before it was healthy:\n"
                            + getLogs());
                }
                try {
                    HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
                    c.setConnectTimeout(1000);
                    c.setReadTimeout(3000);
                    int status = c.getResponseCode();
                    c.disconnect();
                    if (status == 200) {
                        return;
                    }
                    last = "HTTP " + status;
                } catch (IOException e) {
                    last = e.toString();
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ContainerLaunchException("interrupted while waiting for " + url, e);
                }
            }
            throw new ContainerLaunchException("Troupe node " + getNodeAddress() + " not healthy at " + url + " after "
                    + startupTimeout + " (" + last + ")");
        }
    }
}
