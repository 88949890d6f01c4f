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
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	res, err := ws.GitFolder(r.Context(), c, r.URL.Query().Get("path"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// mergeThread is POST /v1/threads/{id}/merge: 200 with hub.MergeResult;
// 409 with details.files on a conflict or a dirty base checkout.
func (s *Server) mergeThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	res, err := ws.MergeThread(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// discardThread is POST /v1/threads/{id}/discard: 200 with the thread,
// its worktree and branch removed.
func (s *Server) discardThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	t, err := ws.DiscardThread(r.Context(), c, r.PathValue("id"))
	s.answerThread(w, r, t, err)
}

// threadChanges is GET /v1/threads/{id}/changes[?turn=|?since=].
func (s *Server) threadChanges(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	ch, err := ws.Changes(r.Context(), c, r.PathValue("id"), hub.ChangesQuery{Turn: q.Get("turn"), Since: q.Get("since")})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, ch)
}

// revertChanges is POST /v1/threads/{id}/changes/revert {path?, sinceTurn?}.
func (s *Server) revertChanges(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	var req hub.RevertRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := ws.RevertChanges(r.Context(), c, r.PathValue("id"), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// listCheckpoints is GET /v1/threads/{id}/checkpoints.
func (s *Server) listCheckpoints(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	cps, err := ws.ListCheckpoints(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, checkpointsAnswer{Checkpoints: cps})
}

// restoreCheckpoint is POST /v1/threads/{id}/checkpoints/{turnId}/restore.
func (s *Server) restoreCheckpoint(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	res, err := ws.RestoreCheckpoint(r.Context(), c, r.PathValue("id"), r.PathValue("turnId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// commitSuggestion is GET /v1/threads/{id}/commit: 200 with
// hub.CommitSuggestion (the files Commit would commit, its message).
func (s *Server) commitSuggestion(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	res, err := ws.CommitSuggestion(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// commitThread is POST /v1/threads/{id}/commit {message?, confirm?}: 200
// with hub.CommitResult; 409 with details.reason NOTHING_TO_COMMIT,
// HOOK_FAILED, SIGNING_FAILED or HOOKS_CHANGED.
func (s *Server) commitThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	var req hub.CommitRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := ws.CommitThread(r.Context(), c, r.PathValue("id"), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// pushThread is POST /v1/threads/{id}/push: 200 with hub.PushResult; 409
// with details.reason PUSH_REJECTED or NO_REMOTE.
func (s *Server) pushThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	res, err := ws.PushThread(r.Context(), c, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// cancelSetup is POST /v1/threads/{id}/setup/cancel: 200 with the thread,
// its worktree setup cancelled; 409 when none runs.
func (s *Server) cancelSetup(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	ws, ok := s.work(w, r)
	if !ok {
		return
	}
	t, err := ws.CancelSetup(r.Context(), c, r.PathValue("id"))
	s.answerThread(w, r, t, err)
}
