-- Placeholder for migration 0017, reserved for the queue (issue 33,
-- "Prompts that wait"), so that this branch's 0018 runs without a gap.
-- Drop this file at merge: the queue's own 0017 takes its place.
SELECT 1;
