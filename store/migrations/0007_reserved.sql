-- 0007: reserved for another branch (approvals: 0005, lifecycle: 0006, 0007).
-- A placeholder so that this branch's 0008 applies; the integrator drops
-- this file when the branch that owns the number is merged.
SELECT 1;
