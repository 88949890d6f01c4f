-- A turn's events by seq, so that a page of a thread's history (GET
-- /v1/threads/{id}/history?limit&cursor) reads only its turns' events.
CREATE INDEX events_turn_seq ON events (turn_id, seq);
