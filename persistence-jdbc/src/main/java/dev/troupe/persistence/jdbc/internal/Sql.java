package dev.troupe.persistence.jdbc.internal;

import dev.troupe.persistence.jdbc.Dialect;

/** The statements of one dialect. */
public final class Sql {

    public static final String JOURNAL = "troupe_event_journal";
    public static final String SNAPSHOT = "troupe_snapshot";
    public static final String STATE = "troupe_durable_state";
    public static final String[] TABLES = {JOURNAL, SNAPSHOT, STATE};

    static final String COLUMNS = "persistence_id, seq_nr, slice, write_timestamp, serializer_id, manifest, tags, payload";
    static final int COLUMN_COUNT = 8;

    static final String COPY = "COPY " + JOURNAL + " (" + COLUMNS + ") FROM STDIN (FORMAT binary)";
    static final String INSERT_ONE = "INSERT INTO " + JOURNAL + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    static final String REPLAY_ONE = "SELECT seq_nr, serializer_id, manifest, payload, deleted FROM " + JOURNAL
        + " WHERE persistence_id = ? AND seq_nr >= ? ORDER BY seq_nr";
    /**
     * PostgreSQL: many entities' events in one query, ordered by the request's position (its
     * 1-based index in the arrays, returned instead of the id: no string per row) then sequence
     * number. The lateral join makes it one primary-key range scan per entity whatever the
     * table's size; a plain join of {@code unnest} with the journal lets the planner pick a
     * (parallel) scan of the whole table once it has many rows.
     */
    static final String REPLAY_MANY_PG = "SELECT r.idx, j.seq_nr, j.serializer_id, j.manifest, j.payload, j.deleted"
        + " FROM unnest(?::varchar[], ?::bigint[]) WITH ORDINALITY AS r(pid, from_seq, idx)"
        + " CROSS JOIN LATERAL (SELECT seq_nr, serializer_id, manifest, payload, deleted FROM " + JOURNAL
        + " WHERE persistence_id = r.pid AND seq_nr >= r.from_seq ORDER BY seq_nr) j"
        + " ORDER BY r.idx, j.seq_nr";
    static final String DELETE_EVENTS = "UPDATE " + JOURNAL + " SET deleted = TRUE, payload = ? WHERE persistence_id = ? AND seq_nr <= ? AND deleted = FALSE";

    static final String SNAPSHOT_LATEST = "SELECT seq_nr, serializer_id, manifest, payload FROM " + SNAPSHOT
        + " WHERE persistence_id = ? ORDER BY seq_nr DESC LIMIT 1";
    /** PostgreSQL: the newest snapshot of many entities, each by its position in the array (a key lookup each, as above). */
    static final String SNAPSHOT_LATEST_MANY_PG = "SELECT r.idx, s.seq_nr, s.serializer_id, s.manifest, s.payload"
        + " FROM unnest(?::varchar[]) WITH ORDINALITY AS r(pid, idx)"
        + " CROSS JOIN LATERAL (SELECT seq_nr, serializer_id, manifest, payload FROM " + SNAPSHOT
        + " WHERE persistence_id = r.pid ORDER BY seq_nr DESC LIMIT 1) s";
    static final String SNAPSHOT_DELETE = "DELETE FROM " + SNAPSHOT + " WHERE persistence_id = ? AND seq_nr <= ?";

    static final String STATE_LOAD = "SELECT revision, serializer_id, manifest, payload FROM " + STATE + " WHERE persistence_id = ?";
    static final String STATE_UPDATE = "UPDATE " + STATE + " SET revision = ?, write_timestamp = ?, serializer_id = ?, manifest = ?, tag = ?, payload = ?"
        + " WHERE persistence_id = ? AND revision = ?";

    final String snapshotUpsert;
    final String stateInsert;
    final String statementTimeout;

    public Sql(Dialect dialect) {
        if (dialect == Dialect.POSTGRESQL) {
            snapshotUpsert = "INSERT INTO " + SNAPSHOT + " (persistence_id, seq_nr, write_timestamp, serializer_id, manifest, payload) VALUES (?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (persistence_id, seq_nr) DO UPDATE SET write_timestamp = EXCLUDED.write_timestamp, serializer_id = EXCLUDED.serializer_id,"
                + " manifest = EXCLUDED.manifest, payload = EXCLUDED.payload";
            stateInsert = "INSERT INTO " + STATE + " (persistence_id, revision, slice, write_timestamp, serializer_id, manifest, tag, payload)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (persistence_id) DO NOTHING";
            statementTimeout = "SET statement_timeout TO ";
        } else {
            snapshotUpsert = "MERGE INTO " + SNAPSHOT + " (persistence_id, seq_nr, write_timestamp, serializer_id, manifest, payload) KEY (persistence_id, seq_nr)"
                + " VALUES (?, ?, ?, ?, ?, ?)";
            stateInsert = "INSERT INTO " + STATE + " (persistence_id, revision, slice, write_timestamp, serializer_id, manifest, tag, payload)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
            statementTimeout = "SET QUERY_TIMEOUT ";
        }
    }

    /**
     * @param rows rows
     * @return a multi-row insert of that many rows
     */
    static String multiRowInsert(int rows) {
        final StringBuilder sb = new StringBuilder(INSERT_ONE.length() + rows * 26);
        sb.append("INSERT INTO ").append(JOURNAL).append(" (").append(COLUMNS).append(") VALUES ");
        for (int i = 0; i < rows; i++) {
            sb.append(i == 0 ? "(?, ?, ?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?, ?, ?)");
        }
        return sb.toString();
    }
}
