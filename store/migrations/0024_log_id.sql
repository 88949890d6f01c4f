-- The event log's identity (issue 30, ADR 0053): a random id made once,
-- with the database. Seqs are numbered within one log; a client that kept a
-- seq (a host's copies here, an editor's Last-Event-ID) compares the id to
-- tell a log that started over (a reset data dir) from the one it left,
-- even when the new log has already passed the seq it kept. A database
-- restored from a backup keeps its id: its seqs are that log's.
CREATE TABLE hub_meta (
	key TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
INSERT INTO hub_meta (key, value) VALUES ('log_id', lower(hex(randomblob(16))));
