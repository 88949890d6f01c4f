-- A limited thread's queue moved to a new thread with another agent
-- (issue 33, ADR 0052): the new thread names the one it continues
-- (continued_from, set at its creation) and that one names it
-- (continued_in, set by the move's transaction). '' when none.
ALTER TABLE threads ADD COLUMN continued_from TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN continued_in TEXT NOT NULL DEFAULT '';
