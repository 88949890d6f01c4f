package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// signInAgent is POST /v1/agents/{id}/auth {methodId} (extension): 200
// {} once an agent method succeeded, or {authSessionId} for a terminal
// method.
func (s *Server) signInAgent(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.AgentAuth == nil {
		s.writeError(w, r, hub.ErrNoAgentAuth)
		return
	}
	var req struct {
		MethodID string `json:"methodId"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.MethodID == "" {
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "methodId is required"))
		return
	}
	res, err := s.svcs.AgentAuth.SignIn(r.Context(), r.PathValue("id"), req.MethodID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// signOutAgent is POST /v1/agents/{id}/logout (extension): 204 once the
// agent ran ACP logout; 404 unknown agent, 409 LOGOUT_UNSUPPORTED.
func (s *Server) signOutAgent(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.AgentAuth == nil {
		s.writeError(w, r, hub.ErrNoAgentAuth)
		return
	}
	if err := s.svcs.AgentAuth.SignOut(r.Context(), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// authStream is GET /v1/auth-sessions/{id}/stream (extension): SSE of the
// terminal's output (event: output, data {"output"}), then event: exit
// (data {"exit": code}); it ends after the exit.
func (s *Server) authStream(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.AgentAuth == nil {
		s.writeError(w, r, hub.ErrNoAgentAuth)
		return
	}
	frames, err := s.svcs.AgentAuth.WatchAuth(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	ping := time.NewTicker(s.ping)
	defer ping.Stop()
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return
			}
			typ := "output"
			if f.Exit != nil {
				typ = "exit"
			}
			b, _ := json.Marshal(f)
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b); err != nil {
				return
			}
			_ = rc.Flush()
			if f.Exit != nil {
				return
			}
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

// authInput is POST /v1/auth-sessions/{id}/input {data} (extension): 204.
func (s *Server) authInput(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.AgentAuth == nil {
		s.writeError(w, r, hub.ErrNoAgentAuth)
		return
	}
	var req struct {
		Data string `json:"data"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.svcs.AgentAuth.AuthInput(r.Context(), r.PathValue("id"), req.Data); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// authResize is POST /v1/auth-sessions/{id}/resize {cols, rows}
// (extension): 204.
func (s *Server) authResize(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.AgentAuth == nil {
		s.writeError(w, r, hub.ErrNoAgentAuth)
		return
	}
	var req struct {
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.svcs.AgentAuth.AuthResize(r.Context(), r.PathValue("id"), req.Cols, req.Rows); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// closeAuth is DELETE /v1/auth-sessions/{id} (extension): 204.
func (s *Server) closeAuth(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.svcs.AgentAuth == nil {
		s.writeError(w, r, hub.ErrNoAgentAuth)
		return
	}
	if err := s.svcs.AgentAuth.CloseAuth(r.Context(), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
