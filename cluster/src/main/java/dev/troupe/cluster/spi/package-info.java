/**
 * The cluster's transport SPI: what membership needs from a node-to-node transport
 * ({@link dev.troupe.cluster.spi.ClusterTransport} and its listener) and the messages a transport
 * carries between members ({@link dev.troupe.cluster.spi.ClusterMessage}). An application passes a
 * transport to {@link dev.troupe.cluster.Cluster#start} and codes against nothing else here;
 * {@link dev.troupe.cluster.RemoteClusterTransport} implements it over the remote transport, and
 * {@code InMemoryClusterNetwork} (artifact {@code troupe-cluster-testkit}) in one JVM. Written in
 * the API's terms only (addresses, statuses, service keys, refs), never the runtime's.
 */
package dev.troupe.cluster.spi;
