package editorbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// The coalescer in the bridge, against the fake hub (bridge_test.go's
// inProcess): live and on session/load.

// updateCount is how many session/updates the editor has had.
func (e *bridgeEditor) updateCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.updates)
}

func (e *bridgeEditor) got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.updates)
}

func chunkUpdate(kind, text string) string {
	b, _ := json.Marshal(text)
	return `{"content":{"type":"text","text":` + string(b) + `},"sessionUpdate":"` + kind + `"}`
}

const toolCallUpdate = `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run","status":"pending"}`

// A bridge that keeps up sends each chunk as it comes: the fake hub sends
// the next chunk only once the editor has the previous one, so a chunk
// held back for company would never arrive.
func TestBridgeLiveChunkNotHeld(t *testing.T) {
	mux := http.NewServeMux()
	editor, ed := inProcess(t, mux, Options{})
	mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Switchboard-Turn-ID", "tu1")
		io.WriteString(w, sseEvent(1, "turn_started", "tu1", `"input":"hi"`))
		for i := range 5 {
			io.WriteString(w, sseEvent(2+i, "message_delta", "tu1", fmt.Sprintf(`"text":"c%d "`, i)))
			w.(http.Flusher).Flush()
			if !testkit.Until(10*time.Second, func() bool { return ed.updateCount() > i }) {
				t.Errorf("chunk %d did not reach the editor within 10 s while the hub waited", i)
				return
			}
		}
		io.WriteString(w, sseEvent(9, "turn_completed", "tu1", `"turn":{"id":"tu1","status":"completed","stopReason":"end_turn"}`))
	})
	if stop, err := promptHi(t, editor); err != nil || stop != "end_turn" {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	var want []string
	for i := range 5 {
		want = append(want, chunkUpdate("agent_message_chunk", fmt.Sprintf("c%d ", i)))
	}
	if got := ed.got(); !slices.Equal(got, want) {
		t.Errorf("updates\n%q\nwant\n%q", got, want)
	}
}

// Chunks that reach the bridge together go as one notification per run,
// never across a tool call or a kind.
func TestBridgeLiveChunksBehind(t *testing.T) {
	const n = 300
	var frames strings.Builder
	var sent []string // the updates, one per chunk
	seq := 1
	frame := func(typ, payload string) {
		frames.WriteString(sseEvent(seq, typ, "tu1", payload))
		seq++
	}
	frame("turn_started", `"input":"hi"`)
	for i := range n {
		frame("message_delta", fmt.Sprintf(`"text":"a%d "`, i))
		sent = append(sent, chunkUpdate("agent_message_chunk", fmt.Sprintf("a%d ", i)))
	}
	frame("tool_call", `"toolCall":`+toolCallUpdate)
	sent = append(sent, toolCallUpdate)
	for i := range n {
		frame("thought_delta", fmt.Sprintf(`"text":"t%d "`, i))
		sent = append(sent, chunkUpdate("agent_thought_chunk", fmt.Sprintf("t%d ", i)))
	}
	for i := range n {
		frame("message_delta", fmt.Sprintf(`"text":"b%d "`, i))
		sent = append(sent, chunkUpdate("agent_message_chunk", fmt.Sprintf("b%d ", i)))
	}
	frame("turn_completed", `"turn":{"id":"tu1","status":"completed","stopReason":"end_turn"}`)

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Switchboard-Turn-ID", "tu1")
		io.WriteString(w, frames.String()) // all at once: the bridge is behind
	})
	editor, ed := inProcess(t, mux, Options{})
	if stop, err := promptHi(t, editor); err != nil || stop != "end_turn" {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	got := ed.got()
	if m, want := mergeUpdates(t, got), mergeUpdates(t, sent); !slices.Equal(m, want) {
		t.Fatalf("updates, runs merged:\n%q\nwant\n%q", m, want)
	}
	if len(got) > len(sent)/4 {
		t.Errorf("%d chunks sent at once came as %d notifications", len(sent), len(got))
	}
	t.Logf("%d updates came as %d", len(sent), len(got))
}

// mergeUpdates reads updates back and merges each run of text chunks of
// one kind: what an editor makes of them.
func mergeUpdates(t *testing.T, us []string) []string {
	t.Helper()
	var out []string
	lastKind := ""
	var text string
	for _, u := range us {
		var p struct {
			SessionUpdate string          `json:"sessionUpdate"`
			Content       json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal([]byte(u), &p); err != nil {
			t.Fatalf("unreadable update %s", u)
		}
		if s, ok := plainText(p.Content); ok {
			if p.SessionUpdate == lastKind {
				text += s
				out[len(out)-1] = chunkUpdate(lastKind, text)
				continue
			}
			lastKind, text = p.SessionUpdate, s
			out = append(out, chunkUpdate(lastKind, text))
			continue
		}
		lastKind = ""
		out = append(out, u)
	}
	return out
}

// session/load: each turn's runs of text chunks as one, over pages;
// prompt blocks that are not plain text as they were; never across turns
// or other updates.
func TestBridgeReplayCoalesced(t *testing.T) {
	image := `{"type":"image","mimeType":"image/png","data":"AA=="}`
	annotated := `{"type":"text","text":"c","annotations":{"priority":1}}`
	ev := func(typ, payload string) hub.Event {
		return hub.Event{Type: typ, TurnID: "tu", Payload: json.RawMessage(payload)}
	}
	pages := []hub.HistoryPage{{
		Turns: []hub.TurnHistory{
			{Turn: hub.Turn{ID: "tu0", Input: "q"}}, // failed at once: no events
			{
				Turn: hub.Turn{ID: "tu1", Input: "abcd", Content: json.RawMessage(`[{"type":"text","text":"a"},{"type":"text","text":"b"},` + image + `,` + annotated + `,{"type":"text","text":"d"}]`)},
				Events: []hub.Event{
					ev("turn_started", `{"input":"abcd"}`),
					ev("message_delta", `{"text":"x"}`), ev("message_delta", `{"text":"y"}`),
					ev("thought_delta", `{"text":"t"}`), ev("message_delta", `{"text":"z"}`),
					ev("permission_required", `{"permission":{}}`),
					ev("message_delta", `{"text":"é"}`),
					ev("tool_call", `{"toolCall":`+toolCallUpdate+`}`),
					ev("message_delta", `{"text":"w"}`),
					ev("turn_completed", `{"turn":{}}`),
				},
			},
			{Turn: hub.Turn{ID: "tu2"}, Events: []hub.Event{ev("message_delta", `{"text":"v"}`)}},
		},
		NextCursor: "p2",
	}, {
		Turns: []hub.TurnHistory{
			{Turn: hub.Turn{ID: "tu3", Input: "hello"}, Events: []hub.Event{ev("message_delta", `{"text":"u"}`), ev("message_delta", `{"text":"u"}`)}},
		},
	}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/threads/th1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"thread":{"id":"th1","agent":"fake"}}`)
	})
	mux.HandleFunc("GET /v1/threads/th1/history", func(w http.ResponseWriter, r *http.Request) {
		page := pages[0]
		if r.URL.Query().Get("cursor") == "p2" {
			page = pages[1]
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(page)
	})
	editor, ed := inProcess(t, mux, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := editor.Call(ctx, "session/load", map[string]any{"sessionId": "th1", "cwd": "/", "mcpServers": []any{}}, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		chunkUpdate("user_message_chunk", "q"), // not merged with the next turn's
		chunkUpdate("user_message_chunk", "ab"),
		`{"content":` + image + `,"sessionUpdate":"user_message_chunk"}`,
		`{"content":` + annotated + `,"sessionUpdate":"user_message_chunk"}`,
		chunkUpdate("user_message_chunk", "d"),
		chunkUpdate("agent_message_chunk", "xy"),
		chunkUpdate("agent_thought_chunk", "t"),
		chunkUpdate("agent_message_chunk", "zé"), // a permission sends no update
		toolCallUpdate,
		chunkUpdate("agent_message_chunk", "w"),
		chunkUpdate("user_message_chunk", ""), // the turn's start, even without input
		chunkUpdate("agent_message_chunk", "v"),
		chunkUpdate("user_message_chunk", "hello"),
		chunkUpdate("agent_message_chunk", "uu"),
	}
	if got := ed.got(); !slices.Equal(got, want) {
		t.Errorf("replay\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
