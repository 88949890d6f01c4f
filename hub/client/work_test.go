package client

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// The worktree, review and checkpoint calls use the documented routes and
// surface a conflict's details.
func TestWorkCalls(t *testing.T) {
	f := newFakeHub(t)
	f.on("POST /v1/threads/th/merge", jsonAnswer(409, `{"error":{"code":"CONFLICT","message":"the merge conflicts in a.txt","details":{"files":["a.txt"]}}}`))
	f.on("DELETE /v1/threads/th", jsonAnswer(204, ``))
	f.on("GET /v1/threads/th/changes", jsonAnswer(200, `{"source":"git","files":[{"path":"a.txt","status":"modified","diff":"d"}]}`))
	f.on("POST /v1/threads/th/checkpoints/tu_1/restore", jsonAnswer(200, `{"files":["a.txt"]}`))
	f.on("GET /v1/threads/th/checkpoints", jsonAnswer(200, `{"checkpoints":[{"turnId":"tu_1","commit":"c","ref":"r"}]}`))
	c := testClient(f, Options{})
	ctx := context.Background()
	_, err := c.MergeThread(ctx, "th")
	var e *Error
	if !errors.As(err, &e) || e.Status != 409 || e.Code != hub.CodeConflict {
		t.Fatalf("merge: %#v", err)
	}
	if files, _ := e.Details["files"].([]any); len(files) != 1 || files[0] != "a.txt" {
		t.Errorf("conflict files %v", e.Details)
	}
	if err := c.DeleteThreadWith(ctx, "th", hub.DeleteOptions{KeepBranch: true}); err != nil {
		t.Fatal(err)
	}
	ch, err := c.Changes(ctx, "th", hub.ChangesQuery{Turn: "tu_1"})
	if err != nil || ch.Source != "git" || len(ch.Files) != 1 || ch.Files[0].Path != "a.txt" {
		t.Fatalf("changes %+v %v", ch, err)
	}
	res, err := c.RestoreCheckpoint(ctx, "th", "tu_1")
	if err != nil || len(res.Files) != 1 {
		t.Fatalf("restore %+v %v", res, err)
	}
	cps, err := c.Checkpoints(ctx, "th")
	if err != nil || len(cps) != 1 || cps[0].TurnID != "tu_1" {
		t.Fatalf("checkpoints %+v %v", cps, err)
	}
	reqs := f.requests()
	var del, chg bool
	for _, r := range reqs {
		switch {
		case r.Method == "DELETE":
			del = r.URL.Query().Get("keepBranch") == "true" && !r.URL.Query().Has("discard")
		case r.URL.Path == "/v1/threads/th/changes":
			chg = r.URL.Query().Get("turn") == "tu_1"
		}
	}
	if !del || !chg {
		t.Errorf("queries: delete keepBranch %v, changes turn %v", del, chg)
	}
}
