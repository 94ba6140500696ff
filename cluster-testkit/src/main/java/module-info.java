/**
 * The Troupe cluster test kit: {@code InMemoryClusterNetwork}, many cluster nodes in one JVM. Built
 * on the cluster's API and transport SPI only.
 */
module dev.troupe.cluster.testkit {
    requires transitive dev.troupe.cluster;

    exports dev.troupe.cluster.testkit;
}
