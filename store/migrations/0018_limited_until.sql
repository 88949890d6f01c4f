-- acpupdates (issue 32, ADR 0044): reserved number 0022, numbered 0017 on
-- this branch so that the migrations run without a gap; renumber at merge.
-- When the agent's provider refused it until a reset time, the thread
-- records that time (hub.Thread.LimitedUntil, unix nanoseconds); NULL when
-- not limited.
ALTER TABLE threads ADD COLUMN limited_until INTEGER;
