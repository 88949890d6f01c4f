-- Repairs the usage ledger of a hub that stored what an agent reported
-- unchecked (issue 28): a cost amount near 1.8e308 made SUM(cost) +Inf,
-- and every budget check and usage report fail. What was spent stays
-- spent: out-of-range numbers are clamped to the caps the hub now
-- enforces on the way in (hub.MaxUsageAmount 1e6, hub.MaxUsageTokens
-- 1e9), never deleted. SQLite stores NaN as NULL, so a non-finite value
-- here is ±Inf, which the comparisons below catch.
UPDATE usage SET amount = 1000000.0 WHERE amount > 1000000.0;
UPDATE usage SET amount = 0 WHERE amount < 0;
UPDATE usage SET cost = 1000000.0 WHERE cost > 1000000.0;
UPDATE usage SET cost = 0 WHERE cost < 0;
UPDATE usage SET used = MIN(MAX(used, 0), 1000000000) WHERE used < 0 OR used > 1000000000;
UPDATE usage SET size = MIN(MAX(size, 0), 1000000000) WHERE size < 0 OR size > 1000000000;
UPDATE usage SET input_tokens = MIN(MAX(input_tokens, 0), 1000000000) WHERE input_tokens < 0 OR input_tokens > 1000000000;
UPDATE usage SET output_tokens = MIN(MAX(output_tokens, 0), 1000000000) WHERE output_tokens < 0 OR output_tokens > 1000000000;
