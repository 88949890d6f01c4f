-- 0009: reserved for another branch (approvals: 0005, lifecycle: 0006, 0007, search: 0008, daily: 0009).
-- A placeholder so that this branch's 0010 applies; the integrator drops
-- this file when the branch that owns the number is merged.
SELECT 1;
