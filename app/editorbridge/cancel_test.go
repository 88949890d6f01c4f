package editorbridge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
)

// A session/cancel handled before its prompt's handler starts is not
// lost: the prompt answers cancelled at once, without a hub turn (there
// is no hub here: a prompt that tried one would fail). A stale cancel —
// every prompt dispatched had begun — does not cancel the next prompt.
func TestBridgeCancelBeforePrompt(t *testing.T) {
	newBridge := func() *server {
		return newServer(Options{DataDir: t.TempDir(), Stderr: io.Discard}, slog.New(slog.DiscardHandler))
	}
	promptParams := func(sid string) json.RawMessage {
		return json.RawMessage(`{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hang"}]}`)
	}
	cancelParams := func(sid string) json.RawMessage { return json.RawMessage(`{"sessionId":"` + sid + `"}`) }
	// dispatched is what the ACP connection does as it reads a prompt,
	// before the prompt's handler begins.
	dispatched := func(b *server, sid string) { b.RequestDispatched("session/prompt", promptParams(sid)) }
	cancelled := func(res any, err error) bool {
		m, ok := res.(map[string]string)
		return err == nil && ok && m["stopReason"] == "cancelled"
	}
	ctx := context.Background()

	t.Run("overtaken", func(t *testing.T) {
		b := newBridge()
		dispatched(b, "th_a")
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_a")) // before the prompt's handler
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_a")); !cancelled(res, err) {
			t.Fatalf("prompt: %v, %v; want stopReason cancelled", res, err)
		}
		// The mark is used up: the next prompt goes to the hub.
		dispatched(b, "th_a")
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_a")); cancelled(res, err) || err == nil {
			t.Fatalf("the following prompt: %v, %v; want it sent to the hub (none runs)", res, err)
		}
	})
	t.Run("stale", func(t *testing.T) {
		b := newBridge()
		dispatched(b, "th_b")
		b.HandleRequest(ctx, "session/prompt", promptParams("th_b")) // ends (no hub)
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_b"))
		dispatched(b, "th_b")
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_b")); cancelled(res, err) {
			t.Fatalf("a stale cancel cancelled the next prompt: %v", res)
		}
	})
	t.Run("a refused prompt leaves nothing queued", func(t *testing.T) {
		b := newBridge()
		empty := json.RawMessage(`{"sessionId":"th_z","prompt":[]}`)
		b.RequestDispatched("session/prompt", empty)
		if _, err := b.HandleRequest(ctx, "session/prompt", empty); err == nil {
			t.Fatal("a prompt without content was accepted")
		}
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_z")) // stale
		dispatched(b, "th_z")
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_z")); cancelled(res, err) {
			t.Fatalf("a stale cancel after a refused prompt cancelled the next one: %v", res)
		}
	})
	t.Run("another session's prompt", func(t *testing.T) {
		b := newBridge()
		dispatched(b, "th_y")
		b.HandleNotification(ctx, "session/cancel", cancelParams("th_x")) // th_y's prompt is the unstarted one
		b.HandleRequest(ctx, "session/prompt", promptParams("th_y"))
		dispatched(b, "th_x")
		if res, err := b.HandleRequest(ctx, "session/prompt", promptParams("th_x")); cancelled(res, err) {
			t.Fatalf("th_x's later prompt was cancelled by a cancel that came before it: %v", res)
		}
	})
}
