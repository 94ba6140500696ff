package dev.troupe.benchmarks.persistence;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import javax.sql.DataSource;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The raw-JDBC ceiling on the journal's own table shape: one connection, transactions of
 * {@code rows} rows of a 108-byte payload, by binary COPY or by one multi-row INSERT. No actors,
 * no serializer, no queue: what the database and the driver allow.
 */
final class RawJdbc {

    private static final String COLUMNS = "persistence_id, seq_nr, slice, write_timestamp, serializer_id, manifest, tags, payload";

    private RawJdbc() {
    }

    /** Writes transactions until {@code nanos} pass; @return rows written */
    static long copy(DataSource ds, String prefix, int rows, long nanos) throws SQLException {
        final byte[] payload = payload();
        final ByteBuffer buf = ByteBuffer.allocate(64 + rows * 200);
        final byte[] header = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0};
        long written = 0;
        long seq = 0;
        final long end = System.nanoTime() + nanos;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            final PGConnection pg = c.unwrap(PGConnection.class);
            final byte[][] pids = new byte[rows][];
            for (int i = 0; i < rows; i++) {
                pids[i] = (prefix + i).getBytes(StandardCharsets.UTF_8);
            }
            while (System.nanoTime() < end) {
                seq++;
                buf.clear();
                buf.put(header);
                final long ts = System.currentTimeMillis() * 1000;
                for (int i = 0; i < rows; i++) {
                    buf.putShort((short) 8);
                    buf.putInt(pids[i].length).put(pids[i]);
                    buf.putInt(8).putLong(seq);
                    buf.putInt(4).putInt(i % 1024);
                    buf.putInt(8).putLong(ts);
                    buf.putInt(4).putInt(801);
                    buf.putInt(0);
                    buf.putInt(-1);
                    buf.putInt(payload.length).put(payload);
                }
                buf.putShort((short) -1);
                final CopyIn in = pg.getCopyAPI().copyIn("COPY troupe_event_journal (" + COLUMNS + ") FROM STDIN (FORMAT binary)");
                in.writeToCopy(buf.array(), 0, buf.position());
                in.endCopy();
                c.commit();
                written += rows;
            }
        }
        return written;
    }

    /** @return rows written by multi-row INSERTs of {@code rows} rows, one per transaction */
    static long multiRowInsert(DataSource ds, String prefix, int rows, long nanos) throws SQLException {
        final byte[] payload = payload();
        final StringBuilder sql = new StringBuilder("INSERT INTO troupe_event_journal (" + COLUMNS + ") VALUES ");
        for (int i = 0; i < rows; i++) {
            sql.append(i == 0 ? "(?, ?, ?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?, ?, ?)");
        }
        final String[] pids = new String[rows];
        for (int i = 0; i < rows; i++) {
            pids[i] = prefix + i;
        }
        long written = 0;
        long seq = 0;
        final long end = System.nanoTime() + nanos;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                while (System.nanoTime() < end) {
                    seq++;
                    final long ts = System.currentTimeMillis() * 1000;
                    int p = 1;
                    for (int i = 0; i < rows; i++) {
                        ps.setString(p++, pids[i]);
                        ps.setLong(p++, seq);
                        ps.setInt(p++, i % 1024);
                        ps.setLong(p++, ts);
                        ps.setInt(p++, 801);
                        ps.setString(p++, "");
                        ps.setString(p++, null);
                        ps.setBytes(p++, payload);
                    }
                    ps.executeUpdate();
                    c.commit();
                    written += rows;
                }
            }
        }
        return written;
    }

    /** @return rows written by pgjdbc batches of {@code rows} one-row inserts (the URL sets reWriteBatchedInserts) */
    static long batch(DataSource ds, String prefix, int rows, long nanos) throws SQLException {
        final byte[] payload = payload();
        final String[] pids = new String[rows];
        for (int i = 0; i < rows; i++) {
            pids[i] = prefix + i;
        }
        long written = 0;
        long seq = 0;
        final long end = System.nanoTime() + nanos;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO troupe_event_journal (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                while (System.nanoTime() < end) {
                    seq++;
                    final long ts = System.currentTimeMillis() * 1000;
                    for (int i = 0; i < rows; i++) {
                        ps.setString(1, pids[i]);
                        ps.setLong(2, seq);
                        ps.setInt(3, i % 1024);
                        ps.setLong(4, ts);
                        ps.setInt(5, 801);
                        ps.setString(6, "");
                        ps.setString(7, null);
                        ps.setBytes(8, payload);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                    c.commit();
                    written += rows;
                }
            }
        }
        return written;
    }

    private static byte[] payload() {
        final ByteBuffer b = ByteBuffer.allocate(BenchModel.EVENT_BYTES);
        BenchModel.writeEvent(new BenchModel.BenchEvent(1, 1, BenchModel.DATA), b);
        return b.array();
    }
}
