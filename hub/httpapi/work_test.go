package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// fakeWork is a hub.WorkService that records each call (its name and
// arguments) and answers zero values, or fail when set.
type fakeWork struct {
	hub.WorkService // the methods the routes never call panic
	mu              sync.Mutex
	calls           []string
	fail            error
}

func (f *fakeWork) record(format string, a ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
	return f.fail
}

func (f *fakeWork) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func (f *fakeWork) GitFolder(_ context.Context, _ hub.Caller, path string) (hub.GitFolder, error) {
	return hub.GitFolder{}, f.record("GitFolder %s", path)
}
func (f *fakeWork) MergeThread(_ context.Context, _ hub.Caller, id string) (hub.MergeResult, error) {
	return hub.MergeResult{}, f.record("MergeThread %s", id)
}
func (f *fakeWork) DiscardThread(_ context.Context, _ hub.Caller, id string) (hub.Thread, error) {
	return hub.Thread{ID: id}, f.record("DiscardThread %s", id)
}
func (f *fakeWork) Changes(_ context.Context, _ hub.Caller, id string, q hub.ChangesQuery) (hub.Changes, error) {
	return hub.Changes{}, f.record("Changes %s turn=%s since=%s", id, q.Turn, q.Since)
}
func (f *fakeWork) RevertChanges(_ context.Context, _ hub.Caller, id string, r hub.RevertRequest) (hub.RestoreResult, error) {
	return hub.RestoreResult{}, f.record("RevertChanges %s %+v", id, r)
}
func (f *fakeWork) ListCheckpoints(_ context.Context, _ hub.Caller, id string) ([]hub.Checkpoint, error) {
	return []hub.Checkpoint{{TurnID: "u1"}}, f.record("ListCheckpoints %s", id)
}
func (f *fakeWork) RestoreCheckpoint(_ context.Context, _ hub.Caller, id, turnID string) (hub.RestoreResult, error) {
	return hub.RestoreResult{}, f.record("RestoreCheckpoint %s %s", id, turnID)
}
func (f *fakeWork) CommitSuggestion(_ context.Context, _ hub.Caller, id string) (hub.CommitSuggestion, error) {
	return hub.CommitSuggestion{}, f.record("CommitSuggestion %s", id)
}
func (f *fakeWork) CommitThread(_ context.Context, _ hub.Caller, id string, r hub.CommitRequest) (hub.CommitResult, error) {
	return hub.CommitResult{}, f.record("CommitThread %s %+v", id, r)
}
func (f *fakeWork) PushThread(_ context.Context, _ hub.Caller, id string) (hub.PushResult, error) {
	return hub.PushResult{}, f.record("PushThread %s", id)
}
func (f *fakeWork) CancelSetup(_ context.Context, _ hub.Caller, id string) (hub.Thread, error) {
	return hub.Thread{ID: id}, f.record("CancelSetup %s", id)
}

// TestWorkRoutes holds the worktree, review, checkpoint and landing
// routes to their answers: 404 NOT_FOUND without hub.Services.Work (also
// before a bad body is read); the service's result as 200 (a thread as
// {"thread"}, checkpoints as {"checkpoints"}); its error as is (code and
// details); a bad body 400 without calling the service.
func TestWorkRoutes(t *testing.T) {
	routes := []struct {
		method, path, body string
		call               string // what reaches the service
		key                string // the answer's top-level key, if any
	}{
		{"GET", "/v1/folders/git?path=/w", "", "GitFolder /w", ""},
		{"POST", "/v1/threads/th1/merge", "", "MergeThread th1", ""},
		{"POST", "/v1/threads/th1/discard", "", "DiscardThread th1", "thread"},
		{"GET", "/v1/threads/th1/changes?turn=u1", "", "Changes th1 turn=u1 since=", ""},
		{"POST", "/v1/threads/th1/changes/revert", `{"path":"a.go","force":true}`, "RevertChanges th1 {Path:a.go Folder: SinceTurn: Force:true}", ""},
		{"GET", "/v1/threads/th1/checkpoints", "", "ListCheckpoints th1", "checkpoints"},
		{"POST", "/v1/threads/th1/checkpoints/u1/restore", "", "RestoreCheckpoint th1 u1", ""},
		{"GET", "/v1/threads/th1/commit", "", "CommitSuggestion th1", ""},
		{"POST", "/v1/threads/th1/commit", `{"message":"Fix","confirm":true}`, "CommitThread th1 {Message:Fix Confirm:true}", ""},
		{"POST", "/v1/threads/th1/push", "", "PushThread th1", ""},
		{"POST", "/v1/threads/th1/setup/cancel", "", "CancelSetup th1", "thread"},
	}
	none := newHarness(t)
	fw := &fakeWork{}
	h := newHarness(t, func(s *hub.Services) { s.Work = fw })
	conflict := &hub.Error{Code: hub.CodeConflict, Message: "no", Details: map[string]any{"reason": "PUSH_REJECTED"}}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			body := rt.body
			if r := none.call(rt.method, rt.path, body); r.status != 404 || r.code() != hub.CodeNotFound ||
				!strings.Contains(string(r.body), "worktrees and checkpoints are not available") {
				t.Errorf("without Work: %d %s", r.status, r.body)
			}

			r := h.call(rt.method, rt.path, body)
			var got map[string]json.RawMessage
			h.mustJSON(r, 200, &got)
			if calls := fw.took(); len(calls) != 1 || calls[0] != rt.call {
				t.Errorf("service calls %q, want %q", calls, rt.call)
			}
			if _, ok := got[rt.key]; rt.key != "" && (!ok || len(got) != 1) {
				t.Errorf("answer %s, want only %q", r.body, rt.key)
			}

			fw.fail = conflict
			r = h.call(rt.method, rt.path, body)
			fw.fail = nil
			fw.took()
			var e ErrorBody
			h.mustJSON(r, 409, &e)
			if e.Error.Code != hub.CodeConflict || e.Error.Message != "no" || e.Error.Details["reason"] != "PUSH_REJECTED" {
				t.Errorf("a service error: %s", r.body)
			}

			if body == "" {
				return
			}
			if r := none.call(rt.method, rt.path, `{"nope":1}`); r.status != 404 {
				t.Errorf("without Work, a bad body: %d %s, want 404", r.status, r.body)
			}
			for _, bad := range []string{`{"nope":1}`, `{"message":`, `{} {}`} {
				if r := h.call(rt.method, rt.path, bad); r.status != 400 || r.code() != hub.CodeInvalidArgument {
					t.Errorf("body %s: %d %s, want 400 INVALID_ARGUMENT", bad, r.status, r.body)
				}
			}
			if calls := fw.took(); len(calls) != 0 {
				t.Errorf("a bad body reached the service: %q", calls)
			}
		})
	}
}
