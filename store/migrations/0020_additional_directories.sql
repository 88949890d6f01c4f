-- agentcaps (issue 32, ADR 0047): reserved number 0021, numbered 0019 on
-- this branch so that the migrations run without a gap; renumber at merge.
-- A thread's extra folders (hub.Thread.AdditionalDirectories, a JSON
-- array of absolute paths): its agent's session gets them as ACP
-- additionalDirectories and the hub's confinement serves them as its own.
-- NULL: none. Set at creation, never changed.
ALTER TABLE threads ADD COLUMN additional_directories TEXT;
