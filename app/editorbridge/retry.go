package editorbridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// An editor sees the retried answer (issue 32). A prompt that failed
// because the agent needs signing in ends with that error; the hub keeps
// the turn and sends it again, once, after a sign-in in Switchboard (ADR
// 0020: the retry's turn_started carries retryOf). Meanwhile the bridge
// follows the session's thread: the retry's updates reach the editor as
// session/update notifications of the session (outside any prompt, as an
// agent may send them), and its permissions and questions are the
// editor's like a prompt's. It stops following at the retry's end, at any
// other turn of the thread (the hub then forgets the retry), when the
// editor leaves, or after retryFollowMax, the hub's own bound.

// retryFollowMax is how long the bridge waits for a retry (the hub's
// authRetryMax).
const retryFollowMax = 30 * time.Minute

// authRequired reports whether an error event says the agent needs
// signing in (details.reason AUTH_REQUIRED).
func authRequired(ev hub.Event) bool {
	var p struct {
		Reason string `json:"reason"`
	}
	return json.Unmarshal(ev.Payload, &p) == nil && p.Reason == hub.ReasonAuthRequired
}

// followRetry relays the retry of failedTurn on sessionID's thread, whose
// events are read after seq after, then returns (see above).
func (b *server) followRetry(sessionID, failedTurn string, after int64) {
	ctx, cancel := context.WithTimeout(context.Background(), retryFollowMax)
	defer cancel()
	go func() {
		select {
		case <-b.conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	st, err := b.hub.ThreadEvents(ctx, sessionID, after, turnStream)
	if err != nil {
		b.log.Warn("switchboard acp: cannot follow the thread for the retry after a sign-in", "thread", sessionID, "err", err)
		return
	}
	defer st.Close()
	for {
		ev, err := st.Next()
		if err != nil {
			return
		}
		if ev.Type != hub.EventTurnStarted {
			continue
		}
		var p struct {
			RetryOf string `json:"retryOf"`
		}
		if json.Unmarshal(ev.Payload, &p) != nil || p.RetryOf != failedTurn {
			return // another turn: the hub forgot the retry
		}
		newTurnRelay(b, sessionID, ev.TurnID).run(st)
		return
	}
}
