package dev.troupe.cluster.testkit;

import dev.troupe.cluster.discovery.HostPort;
import dev.troupe.cluster.discovery.MemberDiscovery;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** Discovery a test edits while the cluster runs; counts lookups so a test can wait for rounds. */
public final class MutableDiscovery implements MemberDiscovery {

    private final CopyOnWriteArrayList<HostPort> endpoints = new CopyOnWriteArrayList<>();
    private final AtomicLong lookups = new AtomicLong();

    /** @param endpoint a candidate to add */
    public void add(HostPort endpoint) {
        endpoints.addIfAbsent(endpoint);
    }

    /** @param endpoint a candidate to drop */
    public void remove(HostPort endpoint) {
        endpoints.remove(endpoint);
    }

    /** @return lookups answered so far (by every node sharing this provider) */
    public long lookups() {
        return lookups.get();
    }

    @Override
    public CompletionStage<List<HostPort>> lookup() {
        lookups.incrementAndGet();
        return CompletableFuture.completedFuture(new ArrayList<>(endpoints));
    }
}
