package editorbridge

import (
	"encoding/json"

	"github.com/switchboard-hub/switchboard/acp"
)

// A session/cancel must not be lost when it overtakes its prompt. The
// editor sends session/prompt, then session/cancel; the ACP connection
// reads them in that order, but runs each request's handler on a goroutine
// of its own while it handles notifications in line, so the cancel may be
// handled before the prompt's handler has begun.
//
// So the bridge is an acp.RequestObserver: it counts each session's
// prompts as the connection dispatches them — in order with the
// notifications — and uncounts them as their handlers begin
// (threadPrompts.queued). A cancel for a session with no prompt running but
// one queued cancels that prompt: it answers "cancelled" at once without
// starting a hub turn. A cancel with nothing running or queued is stale
// (its prompt has ended) and ignored, as ACP says.

var _ acp.RequestObserver = (*server)(nil)

// RequestDispatched implements acp.RequestObserver.
func (b *server) RequestDispatched(method string, params json.RawMessage) {
	if method != "session/prompt" {
		return
	}
	if sid := promptSessionID(params); sid != "" {
		s := b.prompts(sid)
		s.mu.Lock()
		s.queued++
		s.mu.Unlock()
	}
}

// promptSessionID is the sessionId of session/prompt params, "" when there
// is none. RequestDispatched and prompt both read it this way, so every
// prompt counted as queued is uncounted when its handler begins.
func promptSessionID(params json.RawMessage) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.SessionID
}
