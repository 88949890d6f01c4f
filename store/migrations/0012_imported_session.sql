-- A thread made from an agent's own session (issue 16, hub.Thread.Imported):
-- the session's id and where its history is ("stored" or "agent"). At most
-- one live thread per agent session: a deleted thread's tombstone clears
-- them, so the session can be imported again. The second index finds the
-- thread bound to a listed session (its last session id).
ALTER TABLE threads ADD COLUMN imported_session TEXT;
ALTER TABLE threads ADD COLUMN imported_history TEXT;
CREATE UNIQUE INDEX threads_imported_session ON threads(agent, imported_session) WHERE imported_session IS NOT NULL;
CREATE INDEX threads_agent_session ON threads(agent, agent_session_id) WHERE deleted = 0 AND agent_session_id != '';
