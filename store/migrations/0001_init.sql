-- 0001: the initial schema.
--
-- Times are INTEGER unix nanoseconds, UTC (0 = the zero time.Time; NULL
-- where the Go field is a nil *time.Time). JSON is stored as TEXT as the
-- agent or the hub wrote it. Tables are STRICT: a wrong type is an error,
-- not a silent conversion.

CREATE TABLE threads (
	id               TEXT PRIMARY KEY NOT NULL,
	agent            TEXT NOT NULL DEFAULT '',
	cwd              TEXT NOT NULL DEFAULT '',
	title            TEXT NOT NULL DEFAULT '',
	client_id        TEXT NOT NULL DEFAULT '',
	status           TEXT NOT NULL DEFAULT '',
	summary          TEXT NOT NULL DEFAULT '',
	agent_session_id TEXT NOT NULL DEFAULT '',
	deleted          INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL DEFAULT 0,
	updated_at       INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A client's threads, newest first (scanned backwards for DESC, DESC).
CREATE INDEX threads_client_updated ON threads (client_id, deleted, updated_at, id);
-- Every client's threads, newest first; also finds the deleted ones.
CREATE INDEX threads_updated ON threads (deleted, updated_at, id);

CREATE TABLE turns (
	id          TEXT PRIMARY KEY NOT NULL,
	thread_id   TEXT NOT NULL REFERENCES threads (id),
	status      TEXT NOT NULL DEFAULT '',
	input       TEXT NOT NULL DEFAULT '',
	content     TEXT,
	output      TEXT NOT NULL DEFAULT '',
	stop_reason TEXT NOT NULL DEFAULT '',
	error       TEXT NOT NULL DEFAULT '',
	started_at  INTEGER NOT NULL DEFAULT 0,
	ended_at    INTEGER,
	internal    INTEGER NOT NULL DEFAULT 0
) STRICT;

-- History: a thread's turns oldest first (rowid breaks ties).
CREATE INDEX turns_thread_started ON turns (thread_id, started_at);
-- Restart recovery.
CREATE INDEX turns_running ON turns (started_at) WHERE status = 'running';

CREATE TABLE permissions (
	id         TEXT PRIMARY KEY NOT NULL,
	thread_id  TEXT NOT NULL REFERENCES threads (id),
	turn_id    TEXT NOT NULL DEFAULT '',
	status     TEXT NOT NULL,
	tool_call  TEXT,
	options    TEXT NOT NULL DEFAULT 'null',
	deadline   INTEGER NOT NULL DEFAULT 0,
	decided_by TEXT NOT NULL DEFAULT '',
	option_id  TEXT NOT NULL DEFAULT '',
	decided_at INTEGER,
	created_at INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX permissions_status ON permissions (status, created_at);
CREATE INDEX permissions_thread ON permissions (thread_id, created_at);

-- The append-only log. seq is the rowid: each insert takes max(seq)+1, so
-- it is strictly increasing and never reused because no event is ever
-- deleted (deleted threads are hidden, not erased). Not AUTOINCREMENT:
-- that costs a second b-tree write per event for a guarantee we get
-- anyway. A rolled-back insert leaves no gap.
CREATE TABLE events (
	seq       INTEGER PRIMARY KEY,
	type      TEXT NOT NULL,
	thread_id TEXT NOT NULL DEFAULT '',
	turn_id   TEXT NOT NULL DEFAULT '',
	client_id TEXT NOT NULL DEFAULT '',
	at        INTEGER NOT NULL DEFAULT 0,
	payload   TEXT
) STRICT;

-- A thread's events in order (the global stream is the primary key).
CREATE INDEX events_thread_seq ON events (thread_id, seq);

CREATE TABLE agent_processes (
	pid        INTEGER PRIMARY KEY NOT NULL,
	start_time INTEGER NOT NULL DEFAULT 0,
	thread_id  TEXT NOT NULL DEFAULT '',
	agent      TEXT NOT NULL DEFAULT ''
) STRICT;
