package client

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// The agent's sessions: the cursor passed on, 201 and 200 told apart, a
// refusal's reason surfaced.
func TestSessionCalls(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/agents/qwen/sessions", jsonAnswer(200, `{"sessions":[{"sessionId":"s1","cwd":"/src","title":"T","threadId":"th_1"}],"nextCursor":"n2"}`))
	f.on("GET /v1/agents/plain/sessions", jsonAnswer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"no","details":{"reason":"SESSION_LIST_UNSUPPORTED"}}}`))
	f.on("POST /v1/threads/import-session", jsonAnswer(201, `{"thread":{"id":"th_2"}}`), jsonAnswer(200, `{"thread":{"id":"th_2"}}`))
	c := testClient(f, Options{})
	ctx := context.Background()
	p, err := c.AgentSessions(ctx, "qwen", "/src", "n1")
	if err != nil || len(p.Sessions) != 1 || p.Sessions[0].ThreadID != "th_1" || p.NextCursor != "n2" {
		t.Fatalf("page %+v, %v", p, err)
	}
	if r := f.requests()[0]; r.URL.Query().Get("cwd") != "/src" || r.URL.Query().Get("cursor") != "n1" {
		t.Errorf("query %s", r.URL.RawQuery)
	}
	_, err = c.AgentSessions(ctx, "plain", "/src", "")
	var e *Error
	if !errors.As(err, &e) || e.Code != hub.CodeInvalidArgument || e.Details["reason"] != hub.ReasonSessionListUnsupported {
		t.Fatalf("unsupported: %#v", err)
	}
	req := hub.ImportSessionRequest{Agent: "qwen", SessionID: "s2", Cwd: "/src"}
	for _, wantCreated := range []bool{true, false} {
		r, err := c.ImportSession(ctx, req)
		if err != nil || r.Thread.ID != "th_2" || r.Created != wantCreated {
			t.Fatalf("import: %+v, %v; want created %v", r, err, wantCreated)
		}
	}
}
