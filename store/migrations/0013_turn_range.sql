-- A turn's events are read through their thread's index, between the
-- turn's first and last seq, instead of an index of their own (ADR 0026):
-- an entry in events_turn_seq cost every commit one more page for each
-- thread streaming in it. 0 means not known (no bound that side). The
-- writer keeps them (store/turnrange.go); these lines compute them for
-- the events stored before, through the index they replace.
ALTER TABLE turns ADD COLUMN first_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
UPDATE turns SET
	first_seq = coalesce((SELECT min(seq) FROM events WHERE turn_id = turns.id), 0),
	last_seq = coalesce((SELECT max(seq) FROM events WHERE turn_id = turns.id), 0);
DROP INDEX events_turn_seq;
