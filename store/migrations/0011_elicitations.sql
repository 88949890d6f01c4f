-- 0011: the agents' questions (hub.Elicitation, issue 16). body is the
-- elicitation's JSON as the API shows it (the user's answer is never
-- stored); the columns beside it are what lists filter and sort on.
-- IF NOT EXISTS: a database made by main while 0011 was branch sessions'
-- placeholder (SELECT 1) can get this table from a later migration that
-- repeats these statements.
CREATE TABLE IF NOT EXISTS elicitations (
	id         TEXT PRIMARY KEY NOT NULL,
	thread_id  TEXT NOT NULL REFERENCES threads (id),
	status     TEXT NOT NULL,
	agent      TEXT NOT NULL DEFAULT '',
	decided_by TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL DEFAULT 0,
	body       TEXT NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS elicitations_created ON elicitations (created_at, id);
CREATE INDEX IF NOT EXISTS elicitations_thread ON elicitations (thread_id, status);
