/**
 * A cluster node in one call for plain-Java applications: {@link dev.troupe.cluster.node.TroupeNode}.
 */
package dev.troupe.cluster.node;
