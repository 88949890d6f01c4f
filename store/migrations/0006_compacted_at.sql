-- When the thread was last compacted (its agent session replaced by a new
-- one primed with the summary and recent turns); NULL: never.
ALTER TABLE threads ADD COLUMN compacted_at INTEGER;
