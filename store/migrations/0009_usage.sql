-- The usage ledger (issue 17): one row per usage report of an agent, with
-- ids and numbers only (no text), so it outlives its thread's deletion
-- (no foreign key to threads). cost is what the report adds: the increase
-- of amount over the last amount of the same thread, agent session and
-- currency, or amount itself (a new baseline).
CREATE TABLE usage (
	id            INTEGER PRIMARY KEY,
	at            INTEGER NOT NULL, -- Unix milliseconds
	thread_id     TEXT NOT NULL,
	turn_id       TEXT NOT NULL DEFAULT '',
	client_id     TEXT NOT NULL DEFAULT '',
	agent         TEXT NOT NULL DEFAULT '',
	session_id    TEXT NOT NULL DEFAULT '',
	model         TEXT NOT NULL DEFAULT '',
	kind          TEXT NOT NULL,
	used          INTEGER NOT NULL DEFAULT 0,
	size          INTEGER NOT NULL DEFAULT 0,
	amount        REAL,             -- the cumulative cost reported; NULL: none
	currency      TEXT NOT NULL DEFAULT '',
	cost          REAL NOT NULL DEFAULT 0,
	input_tokens  INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX usage_at ON usage (at);
CREATE INDEX usage_thread ON usage (thread_id, at);
CREATE INDEX usage_session ON usage (thread_id, session_id, currency, id);

-- One more turn allowed past an exceeded budget (POST /v1/budgets/override).
CREATE TABLE budget_overrides (
	id         TEXT PRIMARY KEY,
	budget     TEXT NOT NULL,
	thread_id  TEXT NOT NULL DEFAULT '',
	decided_by TEXT NOT NULL,
	at         INTEGER NOT NULL,
	used_by    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX budget_overrides_unused ON budget_overrides (budget, used_by);
