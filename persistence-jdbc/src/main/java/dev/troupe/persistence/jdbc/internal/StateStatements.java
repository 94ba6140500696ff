package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.JournalConflictException;
import dev.troupe.persistence.PersistenceFailure;
import dev.troupe.persistence.PersistenceId;
import dev.troupe.persistence.spi.StoredState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The durable-state table's statements, run by {@link Readers} on a connection of a reader
 * thread: loading an entity's state, and writing a revision, which succeeds only if the stored
 * revision is the one before it (an insert for the first), so two instances of one entity can
 * never both write: the loser gets a {@link JournalConflictException}.
 *
 * <p>Stateless apart from its collaborators: any reader thread may run it.
 */
final class StateStatements {

    private final Sql sql;
    private final Codec codec;
    private final StoreCounters counters;

    StateStatements(Sql sql, Codec codec, StoreCounters counters) {
        this.sql = sql;
        this.codec = codec;
        this.counters = counters;
    }

    StoredState load(Connection c, String pid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Sql.STATE_LOAD)) {
            ps.setString(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return StoredState.NONE;
                }
                final long revision = rs.getLong(1);
                final byte[] payload = rs.getBytes(4);
                if (payload == null) {
                    return new StoredState(revision, null);
                }
                return new StoredState(revision, codec.read("state revision " + revision + " of " + pid, rs.getInt(2), rs.getString(3), payload, payload.length));
            }
        }
    }

    /**
     * @param s the state's bytes, or null to delete the state (the row stays, with its revision)
     * @throws JournalConflictException if another writer stored this revision first
     */
    void write(Connection c, String pid, long revision, String tag, Serialized s) throws SQLException {
        final long now = System.currentTimeMillis() * 1000;
        int n;
        try {
            if (revision == 1) {
                try (PreparedStatement ps = c.prepareStatement(sql.stateInsert)) {
                    ps.setString(1, pid);
                    ps.setLong(2, 1);
                    ps.setInt(3, PersistenceId.sliceOf(pid));
                    ps.setLong(4, now);
                    ps.setInt(5, s == null ? 0 : s.serializerId());
                    ps.setString(6, s == null ? "" : s.manifest());
                    ps.setString(7, tag);
                    ps.setBytes(8, s == null ? null : s.bytes());
                    n = ps.executeUpdate();
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(Sql.STATE_UPDATE)) {
                    ps.setLong(1, revision);
                    ps.setLong(2, now);
                    ps.setInt(3, s == null ? 0 : s.serializerId());
                    ps.setString(4, s == null ? "" : s.manifest());
                    ps.setString(5, tag);
                    ps.setBytes(6, s == null ? null : s.bytes());
                    ps.setString(7, pid);
                    ps.setLong(8, revision - 1);
                    n = ps.executeUpdate();
                }
            }
        } catch (SQLException e) {
            if (SqlErrors.isUniqueViolation(e)) {
                n = 0;
            } else {
                throw e;
            }
        }
        if (n == 0) {
            counters.failure(PersistenceFailure.CONFLICT);
            throw new JournalConflictException(pid, revision, null);
        }
    }
}
