package httpapi

import (
	"mime"
	"net/http"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// TurnHeader carries the turn's id on the SSE answer of
// POST /v1/threads/{id}/turns, so a client can cancel before the first
// event arrives. An extension of API.md.
const TurnHeader = "X-Switchboard-Turn-ID"

type turnAnswer struct {
	Turn hub.Turn `json:"turn"`
}

// startTurn is POST /v1/threads/{id}/turns.
//
// Without Accept: text/event-stream it answers 202 {"turn"} once the turn
// has started. With it, it subscribes to the thread's live events first,
// then starts the turn, and streams that turn's events (and no other's),
// ending after its turn_completed or error event. A turn that cannot start
// (409, 429, 404, …) is answered as JSON, not SSE.
func (s *Server) startTurn(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var in hub.TurnInput
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	threadID := r.PathValue("id")
	if !wantsEventStream(r.Header.Values("Accept")) {
		t, err := s.svc.StartTurn(r.Context(), c, threadID, in)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeJSON(w, r, http.StatusAccepted, turnAnswer{Turn: t})
		return
	}
	// The stream's slot first: a refused stream must not start the turn.
	release, err := s.acquireStream(c)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer release()
	// Subscribe before starting, from "now": no event of the turn can be
	// missed.
	sub, err := s.subscribe(r.Context(), c, threadID, -1)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer sub.Close()
	t, err := s.svc.StartTurn(r.Context(), c, threadID, in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set(TurnHeader, t.ID)
	s.stream(w, r, sub, func(e hub.Event) (write, last bool) {
		if e.TurnID != t.ID {
			return false, false
		}
		return true, e.Type == hub.EventTurnCompleted || e.Type == hub.EventError
	})
}

// cancelTurn is POST /v1/turns/{id}/cancel. Any body is ignored.
func (s *Server) cancelTurn(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	t, err := s.svc.CancelTurn(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, turnAnswer{Turn: t})
}

// wantsEventStream reports whether the Accept header values list
// text/event-stream (with a q other than 0).
func wantsEventStream(accept []string) bool {
	for _, v := range accept {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, ok := params["q"]; ok && strings.Trim(q, "0.") == "" {
				continue // q=0, q=0.0…: explicitly not acceptable
			}
			return true
		}
	}
	return false
}
