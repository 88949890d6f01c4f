-- 0011: the agents' questions (hub.Elicitation, issue 16). body is the
-- elicitation's JSON as the API shows it (the user's answer is never
-- stored); the columns beside it are what lists filter and sort on.
CREATE TABLE elicitations (
	id         TEXT PRIMARY KEY NOT NULL,
	thread_id  TEXT NOT NULL REFERENCES threads (id),
	status     TEXT NOT NULL,
	agent      TEXT NOT NULL DEFAULT '',
	decided_by TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL DEFAULT 0,
	body       TEXT NOT NULL
) STRICT;

CREATE INDEX elicitations_created ON elicitations (created_at, id);
CREATE INDEX elicitations_thread ON elicitations (thread_id, status);
