package dev.troupe.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.testcontainers.containers.Network;
import org.testcontainers.lifecycle.Startables;

/** The sample app's cluster of docker-compose.yml on a Testcontainers network. */
final class SampleCluster implements AutoCloseable {

    final SampleAppNode api;
    final List<SampleAppNode> nodes = new ArrayList<>();

    private SampleCluster(Network network) {
        api = new SampleAppNode("api", network);
        nodes.add(api);
    }

    static SampleCluster start(Network network) {
        SampleCluster c = new SampleCluster(network);
        Startables.deepStart(c.nodes).join();
        return c;
    }

    List<String> aliases() {
        List<String> out = new ArrayList<>();
        for (SampleAppNode n : nodes) {
            out.add(n.alias);
        }
        return out;
    }

    void generateLoad(Duration duration) {
        Deadline d = new Deadline(duration);
        while (d.sleep(Duration.ofMillis(200))) {
            api.get("/actuator/health");
        }
    }

    @Override
    public void close() {
        for (SampleAppNode n : nodes) {
            n.stop();
        }
    }
}
