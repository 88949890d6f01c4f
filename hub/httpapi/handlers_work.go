package httpapi

import (
	"net/http"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// The worktree, review and checkpoint routes (issue 19), over
// hub.Services.Work.
type (
	checkpointsAnswer struct {
		Checkpoints []hub.Checkpoint `json:"checkpoints"`
	}
)

// work returns hub.Services.Work, or answers 404 (hub.ErrNoWork).
func (s *Server) work(w http.ResponseWriter, r *http.Request) (hub.WorkService, bool) {
	ws := s.svcs.Work
	if ws == nil {
		s.writeError(w, r, hub.ErrNoWork)
	}
	return ws, ws != nil
}

// workAnswer answers a route over hub.Services.Work: 404 without it
// (hub.ErrNoWork), else call's result as 200 JSON, or its error as
// writeError answers it.
func (s *Server) workAnswer(w http.ResponseWriter, r *http.Request, call func(hub.WorkService) (any, error)) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	res, err := call(ws)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// workAnswerBody is workAnswer for a route with a JSON body, decoded
// (decodeJSON: 400 for a bad one, after the 404) into req before call.
func (s *Server) workAnswerBody(w http.ResponseWriter, r *http.Request, req any, call func(hub.WorkService) (any, error)) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		if err := decodeJSON(r, req); err != nil {
			return nil, err
		}
		return call(ws)
	})
}

// deleteOptions reads DELETE /v1/threads/{id}'s ?discard=true and
// ?keepBranch=true (both at once is 400).
func deleteOptions(r *http.Request) (hub.DeleteOptions, error) {
	var o hub.DeleteOptions
	q := r.URL.Query()
	for name, dst := range map[string]*bool{"discard": &o.Discard, "keepBranch": &o.KeepBranch} {
		if !q.Has(name) {
			continue
		}
		v, err := strconv.ParseBool(q.Get(name))
		if err != nil {
			return o, &hub.Error{Code: hub.CodeInvalidArgument, Message: name + " must be true or false", Details: map[string]any{"field": name}}
		}
		*dst = v
	}
	if o.Discard && o.KeepBranch {
		return o, hub.Errorf(hub.CodeInvalidArgument, "give discard or keepBranch, not both")
	}
	return o, nil
}

// gitFolder is GET /v1/folders/git?path=: 200 with hub.GitFolder; 400
// for a path that is not an absolute, existing folder.
func (s *Server) gitFolder(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		return ws.GitFolder(r.Context(), c, r.URL.Query().Get("path"))
	})
}

// mergeThread is POST /v1/threads/{id}/merge: 200 with hub.MergeResult;
// 409 with details.files on a conflict or a dirty base checkout.
func (s *Server) mergeThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) { return ws.MergeThread(r.Context(), c, r.PathValue("id")) })
}

// discardThread is POST /v1/threads/{id}/discard: 200 with the thread,
// its worktree and branch removed.
func (s *Server) discardThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		t, err := ws.DiscardThread(r.Context(), c, r.PathValue("id"))
		return threadAnswer{Thread: t}, err
	})
}

// threadChanges is GET /v1/threads/{id}/changes[?turn=|?since=].
func (s *Server) threadChanges(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	q := r.URL.Query()
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		return ws.Changes(r.Context(), c, r.PathValue("id"), hub.ChangesQuery{Turn: q.Get("turn"), Since: q.Get("since")})
	})
}

// revertChanges is POST /v1/threads/{id}/changes/revert {path?, sinceTurn?}.
func (s *Server) revertChanges(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req hub.RevertRequest
	s.workAnswerBody(w, r, &req, func(ws hub.WorkService) (any, error) { return ws.RevertChanges(r.Context(), c, r.PathValue("id"), req) })
}

// listCheckpoints is GET /v1/threads/{id}/checkpoints.
func (s *Server) listCheckpoints(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		cps, err := ws.ListCheckpoints(r.Context(), c, r.PathValue("id"))
		return checkpointsAnswer{Checkpoints: cps}, err
	})
}

// restoreCheckpoint is POST /v1/threads/{id}/checkpoints/{turnId}/restore.
func (s *Server) restoreCheckpoint(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		return ws.RestoreCheckpoint(r.Context(), c, r.PathValue("id"), r.PathValue("turnId"))
	})
}

// commitSuggestion is GET /v1/threads/{id}/commit: 200 with
// hub.CommitSuggestion (the files Commit would commit, its message).
func (s *Server) commitSuggestion(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) { return ws.CommitSuggestion(r.Context(), c, r.PathValue("id")) })
}

// commitThread is POST /v1/threads/{id}/commit {message?, confirm?}: 200
// with hub.CommitResult; 409 with details.reason NOTHING_TO_COMMIT,
// HOOK_FAILED, SIGNING_FAILED or HOOKS_CHANGED.
func (s *Server) commitThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req hub.CommitRequest
	s.workAnswerBody(w, r, &req, func(ws hub.WorkService) (any, error) { return ws.CommitThread(r.Context(), c, r.PathValue("id"), req) })
}

// pushThread is POST /v1/threads/{id}/push: 200 with hub.PushResult; 409
// with details.reason PUSH_REJECTED or NO_REMOTE.
func (s *Server) pushThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) { return ws.PushThread(r.Context(), c, r.PathValue("id")) })
}

// cancelSetup is POST /v1/threads/{id}/setup/cancel: 200 with the thread,
// its worktree setup cancelled; 409 when none runs.
func (s *Server) cancelSetup(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	s.workAnswer(w, r, func(ws hub.WorkService) (any, error) {
		t, err := ws.CancelSetup(r.Context(), c, r.PathValue("id"))
		return threadAnswer{Thread: t}, err
	})
}
