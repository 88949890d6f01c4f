package httpapi

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// The threads' queued prompts (issue 33, hub/queue.go): API.md
// Conventions, "Queued prompts".

type queuedAnswer struct {
	Queued hub.QueuedPrompt `json:"queued"`
}

type queueAnswer struct {
	Queue []hub.QueuedPrompt `json:"queue"`
}

// queue is the Queue capability, or nil after answering NOT_FOUND.
func (s *Server) queue(w http.ResponseWriter, r *http.Request) hub.QueueService {
	if s.svcs.Queue == nil {
		s.writeError(w, r, hub.ErrNoQueue)
	}
	return s.svcs.Queue
}

// enqueue is POST /v1/threads/{id}/queue (the body of a turn): 201
// {"queued"}.
func (s *Server) enqueue(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	qs := s.queue(w, r)
	if qs == nil {
		return
	}
	var in hub.TurnInput
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	q, err := qs.Enqueue(r.Context(), c, r.PathValue("id"), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusCreated, queuedAnswer{Queued: q})
}

// listQueue is GET /v1/threads/{id}/queue: {"queue"}, head first.
func (s *Server) listQueue(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	qs := s.queue(w, r)
	if qs == nil {
		return
	}
	list, err := qs.Queue(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, queueAnswer{Queue: list})
}

// editQueued is PATCH /v1/threads/{id}/queue/{qid} {input?, position?}:
// {"queued"}.
func (s *Server) editQueued(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	qs := s.queue(w, r)
	if qs == nil {
		return
	}
	var e hub.QueueEdit
	if err := decodeJSON(r, &e); err != nil {
		s.writeError(w, r, err)
		return
	}
	if e.Input == nil && e.Position == nil {
		s.writeError(w, r, hub.Errorf(hub.CodeInvalidArgument, `give "input" or "position"`))
		return
	}
	q, err := qs.EditQueued(r.Context(), c, r.PathValue("id"), r.PathValue("qid"), e)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, queuedAnswer{Queued: q})
}

// removeQueued is DELETE /v1/threads/{id}/queue/{qid}: 204.
func (s *Server) removeQueued(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	qs := s.queue(w, r)
	if qs == nil {
		return
	}
	if err := qs.RemoveQueued(r.Context(), c, r.PathValue("id"), r.PathValue("qid")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sendNext is POST /v1/threads/{id}/queue/next: the head sent now,
// whatever pause or limit held it; 202 {"turn"}.
func (s *Server) sendNext(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	qs := s.queue(w, r)
	if qs == nil {
		return
	}
	t, err := qs.SendNext(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusAccepted, turnAnswer{Turn: t})
}

// moveQueue is POST /v1/threads/{id}/queue/move {agentId}: the queue of a
// limited or paused thread moved to a new thread with that agent; 201
// {"thread"}, the new thread.
func (s *Server) moveQueue(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	qs := s.queue(w, r)
	if qs == nil {
		return
	}
	var req hub.QueueMoveRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	t, err := qs.MoveQueue(r.Context(), c, r.PathValue("id"), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusCreated, threadAnswer{Thread: t})
}
