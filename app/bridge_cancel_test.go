package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// chunked reads its chunks one Read at a time.
type chunked struct{ chunks [][]byte }

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// splitEvery cuts s into pieces of n bytes.
func splitEvery(s string, n int) [][]byte {
	var out [][]byte
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, []byte(s[:k]))
		s = s[k:]
	}
	return out
}

func TestPromptSniffer(t *testing.T) {
	const prompt = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"th_1","prompt":[{"type":"text","text":"hi"}]}}` + "\n"
	const cancel = `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"th_1"}}` + "\n"
	const quoted = `{"jsonrpc":"2.0","id":8,"result":{"content":"the method is \"session/prompt\" and session/prompt"}}` + "\n"
	const twice = `{"method":"session/prompt","params":{"x":"session/prompt","y":["session/prompt"]},"id":9,"jsonrpc":"2.0"}` + "\n"
	tests := []struct {
		name  string
		input string
		want  int64
	}{
		{"one prompt", prompt, 1},
		{"prompt then cancel", prompt + cancel, 1},
		{"two prompts", prompt + prompt, 2},
		{"quoted inside a string", quoted, 0},
		{"pattern twice on a line", twice, 1},
		{"no trailing newline", strings.TrimSuffix(prompt, "\n"), 1},
		{"cancel only", cancel + cancel, 0},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 7, 15, 16, 17, 64, 4096} {
			var n int64
			s := &promptSniffer{r: &chunked{chunks: splitEvery(tt.input, size)}, seen: func() { n++ }}
			got, err := io.ReadAll(s)
			if err != nil || string(got) != tt.input {
				t.Fatalf("%s, reads of %d: passed on %q, %v", tt.name, size, got, err)
			}
			if n != tt.want {
				t.Errorf("%s, reads of %d: counted %d prompts, want %d", tt.name, size, n, tt.want)
			}
		}
	}

	// The count is up by the time the read that completes the pattern
	// returns: before anything after it can be dispatched.
	for cut := 1; cut < len(prompt); cut++ {
		var n int64
		s := &promptSniffer{r: &chunked{chunks: [][]byte{[]byte(prompt[:cut]), []byte(prompt[cut:])}}, seen: func() { n++ }}
		buf := make([]byte, len(prompt))
		k, _ := s.Read(buf)
		end := strings.Index(prompt, string(promptPattern)) + len(promptPattern)
		if k >= end && n != 1 {
			t.Fatalf("cut at %d: after the first read (%d bytes, the pattern in it) counted %d", cut, k, n)
		}
		s.Read(buf)
		if n != 1 {
			t.Fatalf("cut at %d: counted %d", cut, n)
		}
	}
}

// A session/cancel handled before its prompt's handler starts is not
// lost: the prompt answers cancelled at once, without a hub turn (there
// is no hub here: a prompt that tried one would fail). A stale cancel —
// every prompt read had started — does not cancel the next prompt.
func TestBridgeCancelBeforePrompt(t *testing.T) {
	newBridge := func() *bridgeServer {
		return &bridgeServer{hub: newHubClient(t.TempDir()), log: slog.New(slog.DiscardHandler), sessions: map[string]*bridgeSession{}}
	}
	line := func(b *bridgeServer, s string) {
		t.Helper()
		in := &promptSniffer{r: strings.NewReader(s + "\n"), seen: func() { b.prompts.read.Add(1) }}
		if _, err := io.Copy(io.Discard, in); err != nil {
			t.Fatal(err)
		}
	}
	promptParams := func(sid string) json.RawMessage {
		return json.RawMessage(`{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hang"}]}`)
	}
	cancelParams := func(sid string) json.RawMessage { return json.RawMessage(`{"sessionId":"` + sid + `"}`) }
	promptLine := func(sid string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":` + string(promptParams(sid)) + `}`
	}
	cancelled := func(res any, err error) bool {
		m, ok := res.(map[string]string)
		return err == nil && ok && m["stopReason"] == "cancelled"
	}
	ctx := context.Background()

	t.Run("overtaken", func(t *testing.T) {
		b := newBridge()
		line(b, promptLine("th_a"))
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_a")) // before the prompt's handler
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_a")); !cancelled(res, err) {
			t.Fatalf("prompt: %v, %v; want stopReason cancelled", res, err)
		}
		// The mark is used up: the next prompt goes to the hub.
		line(b, promptLine("th_a"))
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_a")); cancelled(res, err) || err == nil {
			t.Fatalf("the following prompt: %v, %v; want it sent to the hub (none runs)", res, err)
		}
	})
	t.Run("stale", func(t *testing.T) {
		b := newBridge()
		line(b, promptLine("th_b"))
		b.HandleRequest(ctx, "session/prompt", promptParams("th_b")) // ends (no hub)
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_b"))
		line(b, promptLine("th_b"))
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_b")); cancelled(res, err) {
			t.Fatalf("a stale cancel cancelled the next prompt: %v", res)
		}
	})
	t.Run("another session's prompt", func(t *testing.T) {
		b := newBridge()
		line(b, promptLine("th_y"))
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_x")) // th_y's prompt is the unstarted one
		b.HandleRequest(ctx, "session/prompt", promptParams("th_y"))
		line(b, promptLine("th_x"))
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_x")); cancelled(res, err) {
			t.Fatalf("th_x's later prompt was cancelled by a cancel that came before it: %v", res)
		}
	})
}
