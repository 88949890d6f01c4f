package engine

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// The engine's side of the event bus (hub/eventbus): a caller subscribes
// here, seeing only what it may see.

// Subscribe implements Service.
func (e *Engine) Subscribe(ctx context.Context, c hub.Caller, threadID string, after int64) (*hub.Subscription, error) {
	if threadID != "" {
		if _, err := e.visibleThread(ctx, c, threadID); err != nil {
			return nil, err
		}
	}
	return e.bus.Subscribe(hub.EventFilter{After: after, ThreadID: threadID, ClientID: c.ClientID, All: c.All}), nil
}
