package dev.troupe.cluster.discovery;

import dev.troupe.cluster.discovery.HostPort;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Discovery from a fixed list of {@code host:port} endpoints, like the peers of a static configuration. */
public final class StaticDiscovery implements MemberDiscovery {

    private final List<HostPort> endpoints;

    /**
     * @param endpoints the candidates
     */
    public StaticDiscovery(List<HostPort> endpoints) {
        this.endpoints = List.copyOf(Objects.requireNonNull(endpoints, "endpoints"));
    }

    /**
     * @param endpoints {@code host:port} texts
     * @return the provider
     * @throws IllegalArgumentException naming the entry that is not {@code host:port}
     */
    public static StaticDiscovery of(String... endpoints) {
        final List<HostPort> list = new ArrayList<>(endpoints.length);
        for (String e : endpoints) {
            list.add(HostPort.parse(e));
        }
        return new StaticDiscovery(list);
    }

    @Override
    public CompletionStage<List<HostPort>> lookup() {
        return CompletableFuture.completedFuture(endpoints);
    }

    /** @return the endpoints */
    public List<HostPort> endpoints() {
        return endpoints;
    }

    @Override
    public String toString() {
        return "StaticDiscovery" + endpoints;
    }
}
