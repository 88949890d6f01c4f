package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// Answer bodies. Slices are never null on the wire.
type (
	healthAnswer struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
		// LogID (extension) is the event log's identity (ADR 0053).
		LogID string `json:"logId,omitempty"`
		// Proof answers ?nonce=: hex(HMAC-SHA256(token, nonce)).
		Proof string `json:"proof,omitempty"`
	}
	agentsAnswer struct {
		Agents []hub.Agent `json:"agents"`
		// Node (extension) is the Node runtime installed agents run
		// with, when the hub installs agents.
		Node *hub.NodeStatus `json:"node,omitempty"`
	}
	threadAnswer struct {
		Thread hub.Thread `json:"thread"`
	}
	historyAnswer struct {
		Turns []hub.TurnHistory `json:"turns"`
	}
	// patchThreadRequest is the body of PATCH /v1/threads/{id}: a title,
	// the archived flag, or both (pointers tell a missing field from an
	// empty one); at least one is required.
	patchThreadRequest struct {
		Title    *string `json:"title"`
		Archived *bool   `json:"archived"`
	}
	// modeRequest is the body of POST /v1/threads/{id}/mode.
	modeRequest struct {
		ModeID string `json:"modeId"`
	}
	// configOptionRequest is the body of POST
	// /v1/threads/{id}/config-option; value is required (a pointer tells
	// a missing value from an empty one).
	configOptionRequest struct {
		ConfigID string  `json:"configId"`
		Value    *string `json:"value"`
	}
)

// healthz is GET /healthz: no token, no client id. With ?nonce= (1 to
// 256 printable ASCII characters, else 400) the answer carries proof that
// the hub knows the token (healthProof), for a client to check before it
// sends the token to this address.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	w.Header().Set("Cache-Control", "no-store")
	a := healthAnswer{OK: true, Version: s.version, LogID: s.logID}
	if q := r.URL.Query(); q.Has("nonce") {
		n := q.Get("nonce")
		if !validNonce(n) {
			s.writeError(w, r, &hub.Error{Code: hub.CodeInvalidArgument, Message: "nonce must be 1 to 256 printable ASCII characters",
				Details: map[string]any{"field": "nonce"}})
			return
		}
		if gen := s.tok.Load(); gen.hash.ok {
			a.Proof = healthProof(gen.token, n)
		}
	}
	s.writeJSON(w, r, http.StatusOK, a)
}

// shutdownHub is POST /v1/shutdown (extension): 202, then the hub shuts
// down gracefully — the tray's "Quit Switchboard".
func (s *Server) shutdownHub(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	if s.quit == nil {
		s.writeError(w, r, hub.Errorf(hub.CodeUpstreamUnavailable, "this hub cannot be shut down over the API"))
		return
	}
	s.writeJSON(w, r, http.StatusAccepted, struct {
		ShuttingDown bool `json:"shuttingDown"`
	}{true})
	s.quitOnce.Do(func() { go s.quit() })
}

// listAgents is GET /v1/agents.
func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, _ hub.Caller) {
	agents, err := s.svc.ListAgents(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ans := agentsAnswer{Agents: nonNil(agents)}
	if s.svcs.Installer != nil {
		s.svcs.Installer.RefreshRegistry() // in the background: a later listing shows what it brings
		st := s.svcs.Installer.Node(r.Context())
		ans.Node = &st
	}
	s.writeJSON(w, r, http.StatusOK, ans)
}

// createThread is POST /v1/threads: 201 with a Location header.
func (s *Server) createThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req hub.CreateThreadRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	t, err := s.svc.CreateThread(r.Context(), c, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/threads/"+url.PathEscape(t.ID))
	s.writeJSON(w, r, http.StatusCreated, threadAnswer{Thread: t})
}

// listThreads is GET /v1/threads?limit&cursor&archived, newest first;
// archived threads only with ?archived=true (only them) or all.
func (s *Server) listThreads(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	q := r.URL.Query()
	limit, err := limitParam(q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, err := s.svc.QueryThreads(r.Context(), c, hub.ThreadQuery{Limit: limit, Cursor: q.Get("cursor"), Archived: q.Get("archived")})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page.Threads = nonNil(page.Threads)
	s.writeJSON(w, r, http.StatusOK, page)
}

// getThread is GET /v1/threads/{id}.
func (s *Server) getThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	t, err := s.svc.GetThread(r.Context(), c, r.PathValue("id"))
	s.answerThread(w, r, t, err)
}

// patchThread is PATCH /v1/threads/{id} {"title"?, "archived"?}: the
// title first, then the flag; the answer is the thread after both.
func (s *Server) patchThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req patchThreadRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Title == nil && req.Archived == nil {
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "title or archived is required"))
		return
	}
	var t hub.Thread
	var err error
	if req.Title != nil {
		t, err = s.svc.RenameThread(r.Context(), c, r.PathValue("id"), *req.Title)
	}
	if err == nil && req.Archived != nil {
		t, err = s.svc.SetArchived(r.Context(), c, r.PathValue("id"), *req.Archived)
	}
	s.answerThread(w, r, t, err)
}

// deleteThread is DELETE /v1/threads/{id}[?discard=true|?keepBranch=true]:
// 204 (handlers_work.go: deleteOptions).
func (s *Server) deleteThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	o, err := deleteOptions(r)
	if err == nil {
		if ws := s.svcs.Work; ws != nil {
			err = ws.DeleteThreadWith(r.Context(), c, r.PathValue("id"), o)
		} else {
			err = s.svc.DeleteThread(r.Context(), c, r.PathValue("id"))
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// compactThread is POST /v1/threads/{id}/compact; it answers once the
// summary is stored. Any body is ignored.
func (s *Server) compactThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	t, err := s.svc.CompactThread(r.Context(), c, r.PathValue("id"))
	s.answerThread(w, r, t, err)
}

// openSession is POST /v1/threads/{id}/session: the thread's agent
// session, opened when none is.
func (s *Server) openSession(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	t, err := s.svc.OpenSession(r.Context(), c, r.PathValue("id"))
	s.answerThread(w, r, t, err)
}

// setMode is POST /v1/threads/{id}/mode {"modeId"}.
func (s *Server) setMode(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req modeRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.ModeID == "" {
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "modeId is required"))
		return
	}
	t, err := s.svc.SetMode(r.Context(), c, r.PathValue("id"), req.ModeID)
	s.answerThread(w, r, t, err)
}

// setConfigOption is POST /v1/threads/{id}/config-option {"configId","value"}.
func (s *Server) setConfigOption(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req configOptionRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.ConfigID == "" || req.Value == nil {
		s.writeError(w, r, errorf(hub.CodeInvalidArgument, "configId and value are required"))
		return
	}
	t, err := s.svc.SetConfigOption(r.Context(), c, r.PathValue("id"), req.ConfigID, *req.Value)
	s.answerThread(w, r, t, err)
}

// history is GET /v1/threads/{id}/history?includeEvents&includeInternal,
// and with limit or cursor a page of it (HistoryPage, with nextCursor).
// Unpaged, an answer over hub.MaxHistoryBytes is 413 PAYLOAD_TOO_LARGE,
// details.reason HISTORY_TOO_LARGE: the client pages instead.
func (s *Server) history(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	q := r.URL.Query()
	events, err := boolParam(q, "includeEvents")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	internal, err := boolParam(q, "includeInternal")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if q.Has("limit") || q.Has("cursor") {
		limit, err := limitParam(q)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		page, err := s.svc.HistoryPage(r.Context(), c, r.PathValue("id"),
			hub.HistoryQuery{IncludeEvents: events, IncludeInternal: internal, Limit: limit, Cursor: q.Get("cursor")})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		page.Turns = nonNil(page.Turns)
		s.writeJSON(w, r, http.StatusOK, page)
		return
	}
	turns, err := s.svc.History(r.Context(), c, r.PathValue("id"), events, internal)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := json.Marshal(historyAnswer{Turns: nonNil(turns)})
	switch {
	case err != nil:
		s.writeError(w, r, err)
	case len(b) > hub.MaxHistoryBytes: // the Service's estimate fell short
		s.writeError(w, r, &hub.Error{Code: hub.CodePayloadTooLarge,
			Message: "the history is larger than 64 MiB: read it in pages with limit and cursor",
			Details: map[string]any{"reason": hub.ReasonHistoryTooLarge, "maxBytes": hub.MaxHistoryBytes}})
	default:
		writeJSONBytes(w, http.StatusOK, b)
	}
}

// limitParam reads an optional ?limit: absent is 0 (the default), else a
// positive integer.
func limitParam(q url.Values) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, errorf(hub.CodeInvalidArgument, "limit must be a positive integer")
	}
	return n, nil
}

// auditLimit is the limit of an audit page (GET /v1/permissions,
// GET /v1/elicitations): limitParam, at most hub.MaxPermissionPage.
func auditLimit(q url.Values) (int, error) {
	n, err := limitParam(q)
	if err == nil && n > hub.MaxPermissionPage {
		err = errorf(hub.CodeInvalidArgument, "limit must be at most %d", hub.MaxPermissionPage)
	}
	return n, err
}

func (s *Server) answerThread(w http.ResponseWriter, r *http.Request, t hub.Thread, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, threadAnswer{Thread: t})
}

// boolParam reads an optional boolean query parameter: absent or empty is
// false; otherwise true/false/1/0 (strconv.ParseBool).
func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errorf(hub.CodeInvalidArgument, "%s must be true or false", name)
	}
	return b, nil
}

// nonNil makes a nil slice an empty one, so it encodes as [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
