package editorbridge

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

func TestBridgeEventUpdate(t *testing.T) {
	toolCall := `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run","status":"pending","_meta":{"x":1}}`
	usage := `{"sessionUpdate":"usage_update","used":1,"size":2}`
	future := `{"sessionUpdate":"future_kind","a":[1,2]}`
	tests := []struct {
		typ, payload string
		want         string // "" for no update
	}{
		{hub.EventMessageDelta, `{"text":"hi"}`, `{"content":{"type":"text","text":"hi"},"sessionUpdate":"agent_message_chunk"}`},
		{hub.EventMessageDelta, `{"text":""}`, `{"content":{"type":"text","text":""},"sessionUpdate":"agent_message_chunk"}`},
		{hub.EventThoughtDelta, `{"text":"hm"}`, `{"content":{"type":"text","text":"hm"},"sessionUpdate":"agent_thought_chunk"}`},
		{hub.EventToolCall, `{"toolCall":` + toolCall + `}`, toolCall},
		{hub.EventToolCallUpdate, `{"toolCall":{"toolCallId":"t1","status":"completed"}}`, `{"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"t1"}`},
		{hub.EventPlan, `{"entries":[{"content":"a","priority":"high","status":"pending"}]}`, `{"entries":[{"content":"a","priority":"high","status":"pending"}],"sessionUpdate":"plan"}`},
		{hub.EventModeChanged, `{"modeId":"plan"}`, `{"currentModeId":"plan","sessionUpdate":"current_mode_update"}`},
		{hub.EventAvailableCommands, `{"commands":[{"name":"x"}]}`, `{"availableCommands":[{"name":"x"}],"sessionUpdate":"available_commands_update"}`},
		{hub.EventConfigOptions, `{"configOptions":[]}`, `{"configOptions":[],"sessionUpdate":"config_option_update"}`},
		{hub.EventUsage, `{"usage":` + usage + `}`, usage},
		{hub.EventAgentUpdate, `{"update":` + future + `}`, future},
		// The updates the hub types since issue 32 reach an editor in the agent's shape.
		{hub.EventNotice, `{"notice":{"severity":"info","title":"Hi"}}`, `{"sessionUpdate":"notice","severity":"info","title":"Hi"}`},
		{hub.EventCompaction, `{"compaction":{"compactionId":"c1","status":"completed","summary":"Kept."}}`, `{"compactionId":"c1","sessionUpdate":"compaction_update","status":"completed","summary":[{"type":"text","text":"Kept."}]}`},
		{hub.EventCompactionSummary, `{"compactionId":"c1","text":"more"}`, `{"compactionId":"c1","content":{"type":"text","text":"more"},"sessionUpdate":"compaction_summary_chunk"}`},
		{hub.EventPlanUpdate, `{"plan":{"type":"items","planId":"p1","entries":[]}}`, `{"plan":{"type":"items","planId":"p1","entries":[]},"sessionUpdate":"plan_update"}`},
		{hub.EventPlanRemoved, `{"planId":"p1"}`, `{"planId":"p1","sessionUpdate":"plan_removed"}`},
		{hub.EventSubagent, `{"subagent":{"sessionId":"s1","title":"T"}}`, `{"sessionId":"s1","sessionUpdate":"subagent_update","title":"T"}`},
		{hub.EventMessageStarted, `{"messageId":"m1","kind":"message"}`, ""},
		{hub.EventTurnStarted, `{"input":"x"}`, ""},
		{hub.EventPermissionRequired, `{"permission":{}}`, ""},
		{hub.EventTurnCompleted, `{"turn":{}}`, ""},
		{hub.EventThreadUpdated, `{}`, ""},
		{"some_new_type", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			u, ok := eventUpdate(hub.Event{Type: tt.typ, Payload: json.RawMessage(tt.payload)})
			if tt.want == "" {
				if ok {
					t.Fatalf("got update %s, want none", u)
				}
				return
			}
			if !ok || string(u) != tt.want {
				t.Fatalf("got %s (%v), want %s", u, ok, tt.want)
			}
		})
	}
}

func TestBridgeTurnResult(t *testing.T) {
	ev := func(turn hub.Turn) hub.Event {
		b, _ := json.Marshal(map[string]any{"turn": turn})
		return hub.Event{Type: hub.EventTurnCompleted, Payload: b}
	}
	tests := []struct {
		turn    hub.Turn
		stop    string
		errText string
	}{
		{hub.Turn{Status: hub.TurnCompleted, StopReason: "max_tokens"}, "max_tokens", ""},
		{hub.Turn{Status: hub.TurnCompleted}, "end_turn", ""},
		{hub.Turn{Status: hub.TurnCancelled, StopReason: "end_turn"}, "cancelled", ""},
		{hub.Turn{Status: hub.TurnFailed, Error: "agent died"}, "", "agent died"},
		{hub.Turn{Status: hub.TurnInterrupted}, "", "interrupted"},
	}
	for _, tt := range tests {
		res, err := turnResult(ev(tt.turn))
		if tt.errText != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("%+v: got %v, %v, want error %q", tt.turn, res, err, tt.errText)
			}
			continue
		}
		if m, ok := res.(map[string]string); err != nil || !ok || m["stopReason"] != tt.stop {
			t.Errorf("%+v: got %v, %v, want %s", tt.turn, res, err, tt.stop)
		}
	}
}

func TestBridgeClientID(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "acp-editor",
		"zed":                   "acp-zed",
		"Neovim CodeCompanion":  "acp-Neovim-CodeCompanion",
		"jetbrains/ai.asst_v2":  "acp-jetbrains-ai.asst_v2",
		strings.Repeat("x", 80): "acp-" + strings.Repeat("x", 60),
	} {
		if got := clientID(in); got != want {
			t.Errorf("clientID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBridgeCapabilities(t *testing.T) {
	b, _ := json.Marshal(bridgeCapabilities(nil))
	if string(b) != `{"loadSession":true,"promptCapabilities":{},"sessionCapabilities":{"list":{},"resume":{}}}` {
		t.Errorf("no reported capabilities: %s", b)
	}
	b, _ = json.Marshal(bridgeCapabilities(json.RawMessage(`{"loadSession":false,"promptCapabilities":{"image":true},"mcpCapabilities":{"http":true}}`)))
	if string(b) != `{"loadSession":true,"promptCapabilities":{"image":true},"sessionCapabilities":{"list":{},"resume":{}}}` {
		t.Errorf("reported capabilities: %s", b)
	}
	b, _ = json.Marshal(bridgeCapabilities(json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{"promptCapabilities":{"audio":true}}}`)))
	if string(b) != `{"loadSession":true,"promptCapabilities":{"audio":true},"sessionCapabilities":{"list":{},"resume":{}}}` {
		t.Errorf("reported initialize answer: %s", b)
	}
}

// bridgeEditor is the editor side of an in-process bridge: it records the
// session/update notifications.
type bridgeEditor struct {
	mu      sync.Mutex
	updates []string
	// answer, when set, answers the bridge's requests (set it before the
	// first one).
	answer func(ctx context.Context, method string, params json.RawMessage) (any, error)
	// bridge is the bridge this editor talks to (in-process).
	bridge *server
}

func (e *bridgeEditor) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	e.mu.Lock()
	answer := e.answer
	e.mu.Unlock()
	if answer != nil {
		return answer(ctx, method, params)
	}
	return nil, acp.NewError(acp.CodeMethodNotFound, "no")
}

func (e *bridgeEditor) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != "session/update" {
		return
	}
	var n struct {
		Update json.RawMessage `json:"update"`
	}
	json.Unmarshal(params, &n)
	e.mu.Lock()
	e.updates = append(e.updates, string(n.Update))
	e.mu.Unlock()
}

// inProcess runs a bridge on pipes against the fake hub mux (found
// through a data dir as a real one is) and returns the editor's side.
func inProcess(t *testing.T, mux *http.ServeMux, o Options) (*acp.Conn, *bridgeEditor) {
	t.Helper()
	token := strings.Repeat("ab", 32)
	// The fake proves it knows the token, as the hub does, before the
	// bridge sends it anything.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		m := hmac.New(sha256.New, []byte(token))
		m.Write([]byte(r.URL.Query().Get("nonce")))
		io.WriteString(w, `{"ok":true,"version":"test","proof":"`+hex.EncodeToString(m.Sum(nil))+`"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	o.DataDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(o.DataDir, hub.DiscoveryFile), []byte(`{"url":"`+srv.URL+`","pid":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.DataDir, hub.TokenFile), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Agent, o.Stderr = "fake", io.Discard
	b := newServer(o, slog.New(slog.DiscardHandler))
	toBridgeR, toBridgeW := io.Pipe()
	toEditorR, toEditorW := io.Pipe()
	b.conn = acp.NewConn(toBridgeR, toEditorW, b, acp.ConnOptions{})
	ed := &bridgeEditor{bridge: b}
	editor := acp.NewConn(toEditorR, toBridgeW, ed, acp.ConnOptions{})
	t.Cleanup(func() {
		editor.Close()
		b.conn.Close()
		toBridgeW.Close()
		toEditorW.Close()
	})
	return editor, ed
}

// sseEvent is one frame of a hub event of thread th1.
func sseEvent(seq int, typ, turnID, payload string) string {
	return fmt.Sprintf("id: %d\nevent: %s\ndata: {\"seq\":%d,\"type\":%q,\"threadId\":\"th1\",\"turnId\":%q,\"at\":\"2026-11-21T06:00:00Z\",%s}\n\n", seq, typ, seq, typ, turnID, payload)
}

func promptHi(t *testing.T, editor *acp.Conn) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res struct{ StopReason string }
	err := editor.Call(ctx, "session/prompt", map[string]any{"sessionId": "th1", "prompt": []acp.ContentBlock{acp.TextBlock("hi")}}, &res)
	return res.StopReason, err
}

// TestBridgeResumesBrokenStream: a turn's stream that breaks before
// turn_completed is resumed on the thread's event stream after the last
// id: seen — even that of an event the bridge could not read or does not
// relay; events of other turns are not relayed.
func TestBridgeResumesBrokenStream(t *testing.T) {
	var resumedAfter atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Client-ID") != "acp-editor" || r.Header.Get("Authorization") != "Bearer "+strings.Repeat("ab", 32) {
			http.Error(w, "bad headers", 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Switchboard-Turn-ID", "tu1")
		io.WriteString(w, sseEvent(5, "turn_started", "tu1", `"input":"hi"`))
		io.WriteString(w, sseEvent(6, "message_delta", "tu1", `"text":"a"`))
		io.WriteString(w, sseEvent(7, "message_delta", "tu0", `"text":"other turn"`))
		io.WriteString(w, "id: 8\nevent: from_the_future\ndata: [not an object]\n\n")
		// and the stream breaks
	})
	mux.HandleFunc("GET /v1/threads/th1/events", func(w http.ResponseWriter, r *http.Request) {
		resumedAfter.Store(r.Header.Get("Last-Event-ID"))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseEvent(9, "message_delta", "tu1", `"text":"b"`))
		io.WriteString(w, sseEvent(10, "turn_completed", "tu1", `"turn":{"id":"tu1","status":"completed","stopReason":"max_tokens"}`))
	})
	editor, ed := inProcess(t, mux, Options{})
	stop, err := promptHi(t, editor)
	if err != nil {
		t.Fatal(err)
	}
	if stop != "max_tokens" {
		t.Errorf("stop reason %q", stop)
	}
	if got, _ := resumedAfter.Load().(string); got != "8" {
		t.Errorf("resumed with Last-Event-ID %q, want 8", got)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	want := []string{
		`{"content":{"type":"text","text":"a"},"sessionUpdate":"agent_message_chunk"}`,
		`{"content":{"type":"text","text":"b"},"sessionUpdate":"agent_message_chunk"}`,
	}
	if !slices.Equal(ed.updates, want) {
		t.Errorf("updates %q, want %q", ed.updates, want)
	}
}

// TestBridgeEventTooLong: an event over the bridge's line cap is a clear
// JSON-RPC error to the editor, at once, not a hang; the turn, which no
// one can follow any more, is cancelled in the hub.
func TestBridgeEventTooLong(t *testing.T) {
	cancelled := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Switchboard-Turn-ID", "tu1")
		io.WriteString(w, sseEvent(5, "turn_started", "tu1", `"input":"hi"`))
		io.WriteString(w, sseEvent(6, "message_delta", "tu1", `"text":"`+strings.Repeat("x", 8<<10)+`"`))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the hub would go on
	})
	mux.HandleFunc("POST /v1/turns/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		cancelled <- r.PathValue("id")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"turn":{"id":"tu1","status":"cancelled"}}`)
	})
	mux.HandleFunc("GET /v1/threads/th1/events", func(w http.ResponseWriter, r *http.Request) {
		t.Error("the bridge resumed a stream whose event it cannot read")
		http.Error(w, "no", 500)
	})
	editor, _ := inProcess(t, mux, Options{MaxEventBytes: 4 << 10})
	start := time.Now()
	_, err := promptHi(t, editor)
	var re *acp.Error
	if !errors.As(err, &re) || re.Code != acp.CodeInternalError || !strings.Contains(re.Message, "longer than the bridge's limit of 4096 bytes") {
		t.Fatalf("got %v, want an internal error naming the limit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the error took %v", d)
	}
	select {
	case id := <-cancelled:
		if id != "tu1" {
			t.Errorf("cancelled turn %q", id)
		}
	case <-time.After(5 * time.Second):
		t.Error("the turn was not cancelled")
	}
}

func TestBridgeSessionState(t *testing.T) {
	th := hub.Thread{ID: "th_1"}
	b, _ := json.Marshal(withSessionState(map[string]any{"sessionId": "th_1"}, th))
	if string(b) != `{"sessionId":"th_1"}` {
		t.Errorf("unknown state: %s", b)
	}
	th.Modes = json.RawMessage(`{"currentModeId":"plan","availableModes":[]}`)
	th.ConfigOptions = json.RawMessage(`[{"id":"model","currentValue":"x"}]`)
	b, _ = json.Marshal(withSessionState(map[string]any{}, th))
	if string(b) != `{"configOptions":[{"id":"model","currentValue":"x"}],"modes":{"currentModeId":"plan","availableModes":[]}}` {
		t.Errorf("known state: %s", b)
	}
	th.Modes, th.ConfigOptions = json.RawMessage(`"bad"`), json.RawMessage(`null`)
	b, _ = json.Marshal(withSessionState(map[string]any{}, th))
	if string(b) != `{}` {
		t.Errorf("malformed state: %s", b)
	}
}
