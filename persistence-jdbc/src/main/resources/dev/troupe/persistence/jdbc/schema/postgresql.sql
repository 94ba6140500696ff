-- Troupe persistence, PostgreSQL. Copy into your migrations (Flyway, Liquibase) or let the store
-- run it (initialize-schema=always). Every statement is idempotent.

-- Events: one row per event, keyed by (persistence_id, seq_nr) so that a second writer of a
-- sequence number fails instead of forking the history. slice, ordering and write_timestamp serve
-- a read side (projections by slice range, in ordering order).
CREATE TABLE IF NOT EXISTS troupe_event_journal (
  persistence_id  VARCHAR(255) NOT NULL,
  seq_nr          BIGINT       NOT NULL,
  slice           INT          NOT NULL,
  ordering        BIGINT       GENERATED ALWAYS AS IDENTITY,
  write_timestamp BIGINT       NOT NULL, -- microseconds since the epoch
  serializer_id   INT          NOT NULL,
  manifest        VARCHAR(255) NOT NULL, -- class name for serializers of many classes, else empty
  tags            VARCHAR(255),          -- comma separated
  deleted         BOOLEAN      NOT NULL DEFAULT FALSE, -- deleted events keep their key, not their payload
  payload         BYTEA        NOT NULL,
  PRIMARY KEY (persistence_id, seq_nr)
);

CREATE INDEX IF NOT EXISTS troupe_event_journal_slice_idx ON troupe_event_journal (slice, ordering);

CREATE TABLE IF NOT EXISTS troupe_snapshot (
  persistence_id  VARCHAR(255) NOT NULL,
  seq_nr          BIGINT       NOT NULL,
  write_timestamp BIGINT       NOT NULL,
  serializer_id   INT          NOT NULL,
  manifest        VARCHAR(255) NOT NULL,
  payload         BYTEA        NOT NULL,
  PRIMARY KEY (persistence_id, seq_nr)
);

CREATE TABLE IF NOT EXISTS troupe_durable_state (
  persistence_id  VARCHAR(255) NOT NULL,
  revision        BIGINT       NOT NULL,
  slice           INT          NOT NULL,
  write_timestamp BIGINT       NOT NULL,
  serializer_id   INT          NOT NULL,
  manifest        VARCHAR(255) NOT NULL,
  tag             VARCHAR(255),
  payload         BYTEA,                 -- null once deleted
  PRIMARY KEY (persistence_id)
);
