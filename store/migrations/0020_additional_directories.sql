-- Issue 32, ADR 0047.
-- A thread's extra folders (hub.Thread.AdditionalDirectories, a JSON
-- array of absolute paths): its agent's session gets them as ACP
-- additionalDirectories and the hub's confinement serves them as its own.
-- NULL: none. Set at creation, never changed.
ALTER TABLE threads ADD COLUMN additional_directories TEXT;
