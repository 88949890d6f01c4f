package app

import (
	"context"
	"encoding/json"
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

func TestBridgeSSEReader(t *testing.T) {
	at := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC).Format(time.RFC3339)
	stream := ": ping\n\n" +
		"id: 7\nevent: message_delta\ndata: {\"seq\":7,\"type\":\"message_delta\",\"threadId\":\"th\",\"turnId\":\"tu\",\"at\":\"" + at + "\",\"text\":\"a\"}\n\n" +
		"id: 7\r\nevent: resync\r\ndata: {\"seq\":7,\"type\":\"resync\",\"threadId\":\"\",\"turnId\":\"\",\"at\":\"" + at + "\"}\r\n\r\n" +
		"event: broken\ndata: {not json\n\n" +
		"id: 8\nevent: x\ndata: {\"seq\":8,\"type\":\"x\",\"threadId\":\"th\",\"turnId\":\"tu\",\"at\":\"" + at + "\"}\n\n" +
		"id: 9\ndata: {\"seq\":9,\"type\":\"partial\""
	r := newSSEReader(strings.NewReader(stream))
	var got []string
	for {
		ev, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Type)
		if ev.Type == "message_delta" && (ev.Seq != 7 || ev.TurnID != "tu" || string(ev.Payload) != `{"text":"a"}`) {
			t.Errorf("event %+v", ev)
		}
	}
	if strings.Join(got, ",") != "message_delta,resync,x" {
		t.Errorf("events %v", got)
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
		if got := bridgeClientID(in); got != want {
			t.Errorf("bridgeClientID(%q) = %q, want %q", in, got, want)
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
}

func (e *bridgeEditor) HandleRequest(context.Context, string, json.RawMessage) (any, error) {
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

// TestBridgeResumesBrokenStream: a turn's stream that breaks before
// turn_completed is resumed from the thread's event stream after the last
// seq seen; events of other turns are not relayed.
func TestBridgeResumesBrokenStream(t *testing.T) {
	event := func(seq int, typ, turnID, payload string) string {
		return fmt.Sprintf("id: %d\nevent: %s\ndata: {\"seq\":%d,\"type\":%q,\"threadId\":\"th1\",\"turnId\":%q,\"at\":\"2026-11-21T06:00:00Z\",%s}\n\n", seq, typ, seq, typ, turnID, payload)
	}
	var resumedAfter atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Client-ID") != "acp-editor" || r.Header.Get("Authorization") != "Bearer "+strings.Repeat("ab", 32) {
			http.Error(w, "bad headers", 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Switchboard-Turn-ID", "tu1")
		io.WriteString(w, event(5, "turn_started", "tu1", `"input":"hi"`))
		io.WriteString(w, event(6, "message_delta", "tu1", `"text":"a"`))
		io.WriteString(w, event(7, "message_delta", "tu0", `"text":"other turn"`))
		// and the stream breaks
	})
	mux.HandleFunc("GET /v1/threads/th1/events", func(w http.ResponseWriter, r *http.Request) {
		resumedAfter.Store(r.URL.Query().Get("after"))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, event(8, "message_delta", "tu1", `"text":"b"`))
		io.WriteString(w, event(9, "turn_completed", "tu1", `"turn":{"id":"tu1","status":"completed","stopReason":"max_tokens"}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	if err := writeDiscovery(dir, Discovery{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, tokenFile), []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	b := &bridgeServer{agentID: "fake", hub: newHubClient(dir), log: slog.New(slog.DiscardHandler), stderr: io.Discard, sessions: map[string]*bridgeSession{}}
	toBridgeR, toBridgeW := io.Pipe()
	toEditorR, toEditorW := io.Pipe()
	b.conn = acp.NewConn(toBridgeR, toEditorW, b, acp.ConnOptions{})
	ed := &bridgeEditor{}
	editor := acp.NewConn(toEditorR, toBridgeW, ed, acp.ConnOptions{})
	defer func() {
		editor.Close()
		b.conn.Close()
		toBridgeW.Close()
		toEditorW.Close()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res struct{ StopReason string }
	if err := editor.Call(ctx, "session/prompt", map[string]any{"sessionId": "th1", "prompt": []acp.ContentBlock{acp.TextBlock("hi")}}, &res); err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "max_tokens" {
		t.Errorf("stop reason %q", res.StopReason)
	}
	if got, _ := resumedAfter.Load().(string); got != "7" {
		t.Errorf("resumed after %q, want 7", got)
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
