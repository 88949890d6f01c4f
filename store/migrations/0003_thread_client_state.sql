-- The ACP clientCapabilities of the editor behind a thread (hub.Thread.
-- ClientCapabilities, JSON), so that its fs/terminal delegation survives a
-- hub restart; NULL for threads whose owner serves nothing.
ALTER TABLE threads ADD COLUMN client_capabilities TEXT;
