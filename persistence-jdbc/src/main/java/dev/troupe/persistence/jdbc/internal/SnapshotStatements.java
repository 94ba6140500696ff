package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.PersistenceException;
import dev.troupe.persistence.jdbc.Dialect;
import dev.troupe.persistence.spi.SelectedSnapshot;
import org.agrona.concurrent.UnsafeBuffer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The snapshot table's statements (and the journal's delete, which retention issues beside them),
 * run by {@link Readers} on a connection of a reader thread: the newest snapshot of many entities
 * in one query on PostgreSQL, one per entity elsewhere; saving; deleting up to a sequence number.
 *
 * <p>Stateless apart from its collaborators: any reader thread may run it.
 */
final class SnapshotStatements {

    static final byte[] EMPTY = new byte[0];

    private final Dialect dialect;
    private final Sql sql;
    private final Codec codec;
    private final StoreCounters counters;

    SnapshotStatements(Dialect dialect, Sql sql, Codec codec, StoreCounters counters) {
        this.dialect = dialect;
        this.sql = sql;
        this.codec = codec;
        this.counters = counters;
    }

    /**
     * The newest snapshot of each id: one query on PostgreSQL, one per id elsewhere.
     *
     * @return per id, its {@link SelectedSnapshot}, null if none, or the {@link PersistenceException} that reading it back raised
     */
    Object[] selectLatest(Connection c, String[] pids) throws SQLException {
        final Object[] found = new Object[pids.length];
        final UnsafeBuffer view = new UnsafeBuffer(EMPTY);
        if (dialect == Dialect.POSTGRESQL && pids.length > 1) {
            try (PreparedStatement ps = c.prepareStatement(Sql.SNAPSHOT_LATEST_MANY_PG)) {
                ps.setArray(1, c.createArrayOf("varchar", pids));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        final int i = rs.getInt(1) - 1;
                        found[i] = read(pids[i], rs.getLong(2), rs.getInt(3), rs.getString(4), rs.getBytes(5), view);
                    }
                }
            }
        } else {
            try (PreparedStatement ps = c.prepareStatement(Sql.SNAPSHOT_LATEST)) {
                for (int i = 0; i < pids.length; i++) {
                    ps.setString(1, pids[i]);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            found[i] = read(pids[i], rs.getLong(1), rs.getInt(2), rs.getString(3), rs.getBytes(4), view);
                        }
                    }
                }
            }
        }
        return found;
    }

    private Object read(String pid, long seq, int serializerId, String manifest, byte[] payload, UnsafeBuffer view) {
        try {
            return new SelectedSnapshot(seq, codec.read("snapshot", seq, pid, serializerId, manifest, payload, payload.length, view));
        } catch (PersistenceException e) {
            counters.failure(e.reason());
            return e;
        }
    }

    void save(Connection c, String pid, long seqNr, Serialized s) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.snapshotUpsert)) {
            ps.setString(1, pid);
            ps.setLong(2, seqNr);
            ps.setLong(3, System.currentTimeMillis() * 1000);
            ps.setInt(4, s.serializerId());
            ps.setString(5, s.manifest());
            ps.setBytes(6, s.bytes());
            ps.executeUpdate();
        }
    }

    void deleteUpTo(Connection c, String pid, long maxSeqNr) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Sql.SNAPSHOT_DELETE)) {
            ps.setString(1, pid);
            ps.setLong(2, maxSeqNr);
            ps.executeUpdate();
        }
    }

    /** Retention's delete of events: marked deleted up to {@code toSeqNr}, their payloads emptied (the rows keep the sequence). */
    void deleteEventsTo(Connection c, String pid, long toSeqNr) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Sql.DELETE_EVENTS)) {
            ps.setBytes(1, EMPTY);
            ps.setString(2, pid);
            ps.setLong(3, toSeqNr);
            ps.executeUpdate();
        }
    }
}
