-- Prompts that wait (issue 33, ADR 0039): a thread's queue of prompts,
-- head first by pos (0..n-1). A prompt leaves it in the transaction that
-- stores the turn it became (hub.Write.Dequeue), so it is never sent
-- twice. input/content are the prompt as given (hub.QueuedPrompt).
CREATE TABLE prompt_queue (
	id TEXT PRIMARY KEY,
	thread_id TEXT NOT NULL REFERENCES threads(id),
	pos INTEGER NOT NULL,
	input TEXT NOT NULL DEFAULT '',
	content TEXT,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX prompt_queue_thread ON prompt_queue (thread_id, pos);
-- Why the thread's queue waits for the user (hub.QueuePaused*); '' when it
-- runs.
ALTER TABLE threads ADD COLUMN queue_paused TEXT NOT NULL DEFAULT '';
