package dev.troupe.cluster.node;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behaviors;
import dev.troupe.cluster.ClusterSettings;
import dev.troupe.cluster.Receptionist;
import dev.troupe.cluster.discovery.StaticDiscovery;
import dev.troupe.cluster.sharding.Entity;
import dev.troupe.remote.RemoteSettings;
import dev.troupe.testsupport.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The docs' receptionist example ({@link ReporterExample}): a reporter registered on one node
 * under a service key; counter entities on every node find it through the receptionist and tell
 * it their counts. Nobody hands a ref to an entity.
 */
class EntitiesFindActorsThroughTheReceptionistTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final LoopbackNodes loopback = new LoopbackNodes("127.0.0.5", "127.0.0.6");

    @Test
    void entitiesOnEveryNodeTellAReporterTheyFoundThroughTheReceptionist() throws Exception {
        final String[] hosts = loopback.hosts();
        for (int i = 0; i < 2; i++) {
            final String host = hosts[i];
            loopback.add(TroupeNode.builder("reporting")
                .remote(RemoteSettings.builder().bindHost(host).bindPort(loopback.port(i)).secret("reporter-example-secret-0123456"))
                .cluster(ClusterSettings.builder().discovery(StaticDiscovery.of(loopback.seeds())).discoveryInterval(Duration.ofMillis(500)).build())
                .sharding(Entity.of(ReporterExample.COUNTER, ctx -> ReporterExample.counter(ctx.entityId(), host)))
                .start());
        }
        loopback.awaitUp(WAIT);
        final List<TroupeNode> nodes = loopback.nodes();
        final Map<String, ReporterExample.Changed> latest = new ConcurrentHashMap<>();
        final TroupeNode driver = nodes.get(0);
        final ActorRef<ReporterExample.Changed> reporter = driver.system().spawn(Behaviors.<ReporterExample.Changed>receiveMessage(c -> {
            latest.put(c.id(), c);
            return Behaviors.same();
        }), "reporter");
        Receptionist.get(driver.system()).register(ReporterExample.REPORTERS, reporter);
        // the registration has reached the other node's receptionist
        Await.until("the reporter is listed on every node", WAIT, () -> {
            for (TroupeNode n : nodes) {
                try {
                    final Set<ActorRef<ReporterExample.Changed>> found = Receptionist.get(n.system())
                        .find(ReporterExample.REPORTERS, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS)
                        .serviceInstances(ReporterExample.REPORTERS);
                    if (found.size() != 1) {
                        return false;
                    }
                } catch (Exception e) {
                    return false;
                }
            }
            return true;
        });
        final int counters = 20;
        for (int i = 0; i < counters; i++) {
            nodes.get(i % 2).entityRefFor(ReporterExample.COUNTER, "r-" + i).tell(new ReporterExample.Increment(i + 1));
        }
        Await.until("every counter reported its count", WAIT, () -> {
            for (int i = 0; i < counters; i++) {
                final ReporterExample.Changed c = latest.get("r-" + i);
                if (c == null || c.count() != i + 1) {
                    return false;
                }
            }
            return true;
        }, latest::toString);
        final Set<String> hostsSeen = new java.util.HashSet<>();
        latest.values().forEach(c -> hostsSeen.add(c.host()));
        assertThat(hostsSeen).as("entities on both nodes reached the reporter on the first").containsExactlyInAnyOrder(hosts);
    }
}
