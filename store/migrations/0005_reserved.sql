-- Placeholder for migration 5, which another branch owns (issue 14's
-- merge): migrations run 1, 2, 3, … without a gap, so the lifecycle
-- branch's 0006 needs a 5. Replace this file with the real 0005 when
-- merging; it changes nothing.
SELECT 1;
