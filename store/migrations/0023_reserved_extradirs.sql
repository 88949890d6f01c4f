-- PLACEHOLDER on the queuemove branch only: migration 0023 is reserved for the
-- extradirs part (issue 32), which lands it. Delete this file at the merge; if
-- that part needs no migration, keep it (a no-op) so the versions run
-- without a gap.
SELECT 1;
