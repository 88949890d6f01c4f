-- The ACP clientCapabilities of the editor behind a thread (hub.Thread.
-- ClientCapabilities, JSON), so that its fs/terminal delegation survives a
-- hub restart; NULL for threads whose owner serves nothing.
ALTER TABLE threads ADD COLUMN client_capabilities TEXT;

-- The agent's slash commands (ACP availableCommands, raw JSON) as it last
-- reported them, so a client that opens the thread later offers them
-- before the agent repeats them; NULL until known.
ALTER TABLE threads ADD COLUMN available_commands TEXT;
