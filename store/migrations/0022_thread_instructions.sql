-- Issue 32, ADR 0050.
-- The client system prompt a thread's agent sessions are opened with
-- (hub.Thread.Instructions, JSON {mode, text, from, delivery}): combined
-- from its agent's and its folder's instructions at creation; delivery
-- changes when a session opens. NULL: none.
ALTER TABLE threads ADD COLUMN instructions TEXT;
