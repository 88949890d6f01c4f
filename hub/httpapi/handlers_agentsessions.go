package httpapi

import (
	"net/http"
	"net/url"

	"github.com/switchboard-hub/switchboard/hub"
)

// The agent's own sessions (issue 16): listed and imported.

// listAgentSessions is GET /v1/agents/{id}/sessions?cwd&cursor
// (extension): 200 {sessions, nextCursor?}, a page of the agent's
// sessions in cwd with the agent's cursor.
func (s *Server) listAgentSessions(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	q := r.URL.Query()
	page, err := s.svc.ListAgentSessions(r.Context(), c, r.PathValue("id"), q.Get("cwd"), q.Get("cursor"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, page)
}

// importSession is POST /v1/threads/import-session (extension): 201
// {thread} for a new thread bound to the agent's session, 200 {thread}
// when one was already.
func (s *Server) importSession(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req hub.ImportSessionRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.ImportSession(r.Context(), c, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/threads/"+url.PathEscape(res.Thread.ID))
	}
	s.writeJSON(w, r, status, threadAnswer{Thread: res.Thread})
}
