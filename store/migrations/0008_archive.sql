-- 0008: archived threads (issue 21). An archived thread is hidden from
-- GET /v1/threads unless asked for; its status, turns and permissions are
-- unchanged.
ALTER TABLE threads ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
