package editorbridge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
)

// TestBridgeRememberOptions: a relayed permission offers the editor the
// agent's options unchanged, then the bridge's "always in this thread"
// options; the editor's choice of one of those is the hub decision with
// remember "thread", of the agent's own options that exact option. An
// agent whose own option ids look like the bridge's gets none added, and
// its option is sent as itself, never as a remembered decision.
func TestBridgeRememberOptions(t *testing.T) {
	agentOpts := `[{"optionId":"allow-once","name":"Allow","kind":"allow_once"},{"optionId":"allow-always","name":"Always","kind":"allow_always"},{"optionId":"reject-once","name":"Reject","kind":"reject_once"}]`
	std := []acp.PermissionOption{
		{OptionID: "allow-once", Name: "Allow", Kind: "allow_once"},
		{OptionID: "allow-always", Name: "Always", Kind: "allow_always"},
		{OptionID: "reject-once", Name: "Reject", Kind: "reject_once"},
	}
	allow := acp.PermissionOption{OptionID: RememberAllowOptionID, Name: "Allow always in this thread (Switchboard)", Kind: "allow_always"}
	deny := acp.PermissionOption{OptionID: RememberDenyOptionID, Name: "Deny always in this thread (Switchboard)", Kind: "reject_always"}
	selected := func(id string) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": id}}
	}
	for _, tt := range []struct {
		name        string
		options     string // the agent's, in the hub's permission
		answer      any    // the editor's
		wantOffered []acp.PermissionOption
		wantSent    map[string]any // the body of POST /v1/permissions/pm1
	}{
		{"allow always in this thread", agentOpts, selected(RememberAllowOptionID),
			append(append([]acp.PermissionOption{}, std...), allow, deny), map[string]any{"outcome": "approved", "remember": "thread"}},
		{"deny always in this thread", agentOpts, selected(RememberDenyOptionID),
			append(append([]acp.PermissionOption{}, std...), allow, deny), map[string]any{"outcome": "declined", "remember": "thread"}},
		{"the agent's own allow_always", agentOpts, selected("allow-always"),
			append(append([]acp.PermissionOption{}, std...), allow, deny), map[string]any{"optionId": "allow-always"}},
		{"cancelled by the editor", agentOpts, map[string]any{"outcome": map[string]any{"outcome": "cancelled"}},
			append(append([]acp.PermissionOption{}, std...), allow, deny), map[string]any{"outcome": "declined"}},
		{"no allow_once: no allow always", `[{"optionId":"reject-once","name":"Reject","kind":"reject_once"}]`, selected(RememberDenyOptionID),
			[]acp.PermissionOption{{OptionID: "reject-once", Name: "Reject", Kind: "reject_once"}, deny}, map[string]any{"outcome": "declined", "remember": "thread"}},
		{"an agent's option named like the bridge's", `[{"optionId":"switchboard.remember.thread.allow","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]`,
			selected(RememberAllowOptionID),
			[]acp.PermissionOption{{OptionID: RememberAllowOptionID, Name: "Allow", Kind: "allow_once"}, {OptionID: "no", Name: "No", Kind: "reject_once"}},
			map[string]any{"optionId": RememberAllowOptionID}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			perm := `{"id":"pm1","threadId":"th1","turnId":"tu1","status":"pending","toolCall":{"toolCallId":"c1","title":"Run make clean","kind":"execute"},"options":` + tt.options + `}`
			decided := make(chan map[string]any, 1)
			mux := http.NewServeMux()
			mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("X-Switchboard-Turn-ID", "tu1")
				io.WriteString(w, sseEvent(5, "turn_started", "tu1", `"input":"hi"`))
				io.WriteString(w, sseEvent(6, "permission_required", "tu1", `"permission":`+perm))
				w.(http.Flusher).Flush()
				select {
				case <-decided:
				case <-time.After(10 * time.Second):
					t.Error("no decision reached the hub")
				}
				io.WriteString(w, sseEvent(7, "turn_completed", "tu1", `"turn":{"id":"tu1","status":"completed","stopReason":"end_turn"}`))
			})
			mux.HandleFunc("POST /v1/permissions/pm1", func(w http.ResponseWriter, r *http.Request) {
				var body map[string]any
				json.NewDecoder(r.Body).Decode(&body)
				if !reflect.DeepEqual(body, tt.wantSent) {
					t.Errorf("the hub got %v, want %v", body, tt.wantSent)
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"permission":{"id":"pm1","status":"approved"},"rule":{"id":"ru_1","scope":"thread","decision":"allow"}}`)
				decided <- body
			})
			editor, ed := inProcess(t, mux, Options{})
			offered := make(chan acp.RequestPermissionRequest, 1)
			ed.mu.Lock()
			ed.answer = func(_ context.Context, method string, params json.RawMessage) (any, error) {
				if method != "session/request_permission" {
					return nil, acp.NewError(acp.CodeMethodNotFound, "no")
				}
				var req acp.RequestPermissionRequest
				json.Unmarshal(params, &req)
				offered <- req
				return tt.answer, nil
			}
			ed.mu.Unlock()
			stop, err := promptHi(t, editor)
			if err != nil || stop != "end_turn" {
				t.Fatalf("prompt: %q %v", stop, err)
			}
			req := <-offered
			if !reflect.DeepEqual(req.Options, tt.wantOffered) {
				t.Errorf("offered %+v\nwant %+v", req.Options, tt.wantOffered)
			}
			if req.SessionID != "th1" {
				t.Errorf("session %q", req.SessionID)
			}
		})
	}
}
