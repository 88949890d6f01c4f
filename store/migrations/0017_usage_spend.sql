-- Spend in tokens and agent time (issue 33): the cached tokens of a
-- prompt's usage, and the agent time of a turn (a record of kind "turn",
-- written when the turn ends: its running wall time less the time a
-- person was asked, in seconds), which budgets.minutes counts.
ALTER TABLE usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN seconds REAL NOT NULL DEFAULT 0;
-- The cost of a prompt's tokens at budgets.prices, in the budgets'
-- currency, when its turn reported no cost: an estimate, shown as one,
-- never counted as spent.
ALTER TABLE usage ADD COLUMN estimate REAL NOT NULL DEFAULT 0;
