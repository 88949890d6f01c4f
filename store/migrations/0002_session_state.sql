-- The agent session's modes (ACP SessionModeState) and config options
-- (ACP configOptions), raw JSON as the agent last reported them; NULL
-- until known.
ALTER TABLE threads ADD COLUMN modes TEXT;
ALTER TABLE threads ADD COLUMN config_options TEXT;
