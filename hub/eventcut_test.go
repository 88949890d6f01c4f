package hub_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestCutEvent(t *testing.T) {
	at := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	ev := func(typ string, payload any) hub.Event {
		p, _ := json.Marshal(payload)
		return hub.Event{Seq: 7, Type: typ, ThreadID: "th_1", TurnID: "tu_1", At: at, Payload: p}
	}
	big := strings.Repeat("a", 3<<20)
	tests := []struct {
		name  string
		e     hub.Event
		limit int
		cut   bool
		check func(t *testing.T, m map[string]any)
	}{
		{"small", ev("message_delta", map[string]string{"text": "hi"}), 1 << 20, false, func(t *testing.T, m map[string]any) {
			if m["text"] != "hi" || m["truncated"] != nil {
				t.Fatalf("%v", m)
			}
		}},
		{"no limit", ev("message_delta", map[string]string{"text": big}), 0, false, nil},
		{"client request", ev("client_request", map[string]any{"requestId": "cr_1", "method": "fs/write_text_file",
			"params": map[string]string{"path": "/x", "content": big}}), 1 << 20, false, nil},
		{"long text", ev("message_delta", map[string]string{"text": big}), 1 << 20, true, func(t *testing.T, m map[string]any) {
			if s := m["text"].(string); len(s) < 256<<10 || !strings.HasPrefix(big, s) {
				t.Fatalf("text cut to %d bytes", len(s))
			}
		}},
		{"multibyte", ev("message_delta", map[string]string{"text": strings.Repeat("é€", 1<<19)}), 64 << 10, true, func(t *testing.T, m map[string]any) {
			if s := m["text"].(string); !utf8.ValidString(s) || s == "" {
				t.Fatalf("text %d bytes, valid %v", len(s), utf8.ValidString(s))
			}
		}},
		{"nested tool call", ev("tool_call", map[string]any{"toolCall": map[string]any{"toolCallId": "call_1", "status": "completed",
			"content": []any{map[string]any{"type": "diff", "path": "/x", "oldText": big, "newText": big}}}}), 1 << 20, true,
			func(t *testing.T, m map[string]any) {
				tc := m["toolCall"].(map[string]any)
				diff := tc["content"].([]any)[0].(map[string]any)
				if tc["toolCallId"] != "call_1" || tc["status"] != "completed" || diff["path"] != "/x" || len(diff["newText"].(string)) == 0 {
					t.Fatalf("short fields must stay whole: %v", tc)
				}
			}},
		{"not in strings", ev("plan", map[string]any{"entries": make([]int, 1<<20)}), 1 << 20, true, func(t *testing.T, m map[string]any) {
			if _, ok := m["entries"]; ok {
				t.Fatal("entries kept")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, _ := tt.e.MarshalJSON()
			data, cut, err := hub.CutEvent(tt.e, tt.limit)
			if err != nil || cut != tt.cut {
				t.Fatalf("cut %v, err %v", cut, err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if m["seq"] != float64(7) || m["type"] != tt.e.Type || m["threadId"] != "th_1" || m["turnId"] != "tu_1" {
				t.Fatalf("head changed: %v", m)
			}
			if tt.cut {
				if len(data) > tt.limit || m["truncated"] != true || m["bytes"] != float64(len(whole)) {
					t.Fatalf("%d bytes (limit %d), truncated %v, bytes %v (whole %d)", len(data), tt.limit, m["truncated"], m["bytes"], len(whole))
				}
			} else if string(data) != string(whole) {
				t.Fatal("an event under the limit must be sent as stored")
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}
