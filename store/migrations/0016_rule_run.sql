-- A remembered command rule pins one exact run (ADR 0035): the folder
-- the command runs in and a digest of the environment the agent sets
-- (hub.RememberedRule.RunsIn, EnvKey). Rules stored before have '' for
-- both: they match only a command run with neither.
ALTER TABLE remembered_rules ADD COLUMN runs_in TEXT NOT NULL DEFAULT '';
ALTER TABLE remembered_rules ADD COLUMN env_key TEXT NOT NULL DEFAULT '';
