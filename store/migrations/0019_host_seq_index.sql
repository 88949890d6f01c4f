-- Issue 30, ADR 0048.
-- The index store.HostSeq reads. A host's
-- copies (ADR 0046) are the events whose payload holds a hostSeq; their
-- thread id is "<id>@<host>", the host's name after the LAST "@" (a host's
-- own ids may hold one: "x@other@box" is box's). SQLite has no "last index
-- of", so the host is what follows the longest prefix ending in "@":
-- rtrim(thread_id, <its characters but "@">) is that prefix. The same
-- expression is in store/hosts.go (hostOfThreadSQL): SQLite uses the index
-- only for a query that names it exactly. Partial: this hub's own events
-- (no hostSeq) are not in it.
CREATE INDEX events_host_seq ON events (
	substr(thread_id, length(rtrim(thread_id, replace(thread_id, '@', ''))) + 1),
	seq
) WHERE json_extract(payload, '$.hostSeq') IS NOT NULL;
