-- 0007: full-text search over what people look for (store/search*.go).
--
-- One document per message or thought (all its chunks' text), prompt,
-- tool call (title, command, paths) and thread title. A document's id is
-- the seq of the event that starts it, so that newest-first is rowid
-- order and a hit names the event to scroll to. search_fts holds the text
-- as it is stored in the events (after redaction); search_docs says whose
-- it is.
-- owner is one token naming the thread's owner (its client id, hex), so
-- that a client's search is an intersection in the index, not a filter
-- over every client's matches; queries search text only.
CREATE VIRTUAL TABLE search_fts USING fts5(text, owner, tokenize = 'unicode61 remove_diacritics 2');
-- A deleted document's terms leave the index at once instead of lingering
-- in older segments until a merge (docs/SECURITY.md "Secrets at rest").
INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 1);

CREATE TABLE search_docs (
	seq       INTEGER PRIMARY KEY, -- = search_fts.rowid: the document's first event
	thread_id TEXT NOT NULL,
	turn_id   TEXT NOT NULL DEFAULT '',
	kind      TEXT NOT NULL,       -- prompt, message, thought, tool, title
	at        INTEGER NOT NULL DEFAULT 0,
	-- 1 while a message or thought still streams: its text in search_fts
	-- may lack its last (up to 4 KiB) part; a store opened after a crash
	-- rebuilds such documents from the events.
	streaming INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX search_docs_thread ON search_docs (thread_id, kind);
CREATE INDEX search_docs_streaming ON search_docs (seq) WHERE streaming = 1;

-- The background indexing of events stored before the index existed (or
-- while it was switched off): events with seq < backfill_below, thread by
-- thread in rowid order after next_thread. backfill_below 0: nothing left;
-- -1: the index is stale (search was off) and is rebuilt at the next open
-- with search on.
CREATE TABLE search_state (
	id             INTEGER PRIMARY KEY CHECK (id = 1),
	backfill_below INTEGER NOT NULL,
	next_thread    INTEGER NOT NULL DEFAULT 0
) STRICT;

INSERT INTO search_state (id, backfill_below, next_thread)
	SELECT 1, CASE WHEN MAX(seq) IS NULL THEN 0 ELSE MAX(seq) + 1 END, 0 FROM events;
