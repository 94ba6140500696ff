/**
 * The cluster's runtime; not an API. {@link dev.troupe.cluster.internal.ClusterRuntime} is what a
 * {@link dev.troupe.cluster.Cluster} stands on: the {@code ClusterDaemon} actor, which drives this
 * node's {@code Membership} (the peers, statuses and events; {@code DiscoveryView}, what
 * discovery lists and the join gate; {@code RemovalRules}, when an unreachable member goes), and
 * the view it publishes. {@link dev.troupe.cluster.internal.ReceptionistActor} is what a
 * {@link dev.troupe.cluster.Receptionist} stands on, with its {@code ReceptionistReplica} toward
 * the members. {@link dev.troupe.cluster.internal.ClusterMessageSerializer} and
 * {@link dev.troupe.cluster.internal.PeerMessage} carry membership over the remote transport.
 */
package dev.troupe.cluster.internal;
