-- Approvals with leverage (issue 13): remembered decisions, the audit's
-- filters, escalation.

-- A decision a person asked the hub to remember (hub.RememberedRule),
-- tried after the config file's rules. Ordered by rowid (oldest first).
CREATE TABLE remembered_rules (
	id            TEXT PRIMARY KEY NOT NULL,
	scope         TEXT NOT NULL,
	thread_id     TEXT NOT NULL DEFAULT '',
	cwd           TEXT NOT NULL DEFAULT '',
	agent         TEXT NOT NULL DEFAULT '',
	kind          TEXT NOT NULL DEFAULT '',
	command       TEXT NOT NULL DEFAULT '',
	decision      TEXT NOT NULL,
	title         TEXT NOT NULL DEFAULT '',
	created_at    INTEGER NOT NULL DEFAULT 0,
	created_by    TEXT NOT NULL DEFAULT '',
	permission_id TEXT NOT NULL DEFAULT '',
	client_id     TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX remembered_rules_thread ON remembered_rules (thread_id);

-- The thread's agent, kept on each permission for the audit's agent
-- filter (a thread's agent never changes), and when it was escalated.
ALTER TABLE permissions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE permissions ADD COLUMN escalated_at INTEGER;
UPDATE permissions SET agent = COALESCE((SELECT agent FROM threads WHERE threads.id = permissions.thread_id), '');

-- The audit reads newest first, by itself or by agent or decider.
CREATE INDEX permissions_created ON permissions (created_at, id);
CREATE INDEX permissions_agent ON permissions (agent, created_at);
