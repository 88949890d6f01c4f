-- 0008: reserved for another branch (lifecycle: 0006, 0007, search: 0008, daily: 0009, usage: 0010).
-- A placeholder so that this branch's 0011 applies; the integrator drops
-- this file when the branch that owns the number is merged.
SELECT 1;
