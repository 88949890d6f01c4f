-- Issue 33 (ADR 0052), two parts.
-- A limited thread's queue moved to a new thread with another agent
-- (issue 33, ADR 0052): the new thread names the one it continues
-- (continued_from, set at its creation) and that one names it
-- (continued_in, set by the move's transaction). '' when none.
ALTER TABLE threads ADD COLUMN continued_from TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN continued_in TEXT NOT NULL DEFAULT '';
-- The ledger's tokens (issue 33): a usage_update record carries the
-- growth of the context window as input tokens; a turn's response that
-- reports tokens takes them back (store/usage.go). Its turn's update
-- records are found by this index.
CREATE INDEX usage_turn_updates ON usage (turn_id) WHERE kind = 'update';
