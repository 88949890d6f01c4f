package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// CompletedTurn returns the turn a turn_completed event announces, with
// its whole output. The event carries at most the output's first
// hub.TurnEventOutputMax bytes (OutputTruncated set, OutputBytes the whole
// size); such a turn is read from the thread's history, a page of turns at
// a time (without their events), and returned as stored.
func (c *Client) CompletedTurn(ctx context.Context, ev hub.Event) (hub.Turn, error) {
	if ev.Type != hub.EventTurnCompleted {
		return hub.Turn{}, fmt.Errorf("hub: CompletedTurn: a %s event, not turn_completed", ev.Type)
	}
	var p struct {
		Turn hub.Turn `json:"turn"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil || p.Turn.ID == "" {
		return hub.Turn{}, fmt.Errorf("hub: CompletedTurn: unreadable turn_completed event (seq %d): %v", ev.Seq, err)
	}
	if !p.Turn.OutputTruncated {
		return p.Turn, nil
	}
	q := hub.HistoryQuery{Limit: 50, IncludeInternal: p.Turn.Internal}
	for {
		page, err := c.HistoryPage(ctx, p.Turn.ThreadID, q)
		if err != nil {
			return hub.Turn{}, err
		}
		for _, t := range page.Turns {
			if t.ID == p.Turn.ID {
				return t.Turn, nil
			}
		}
		if page.NextCursor == "" {
			return hub.Turn{}, fmt.Errorf("hub: CompletedTurn: turn %s is not in thread %s's history", p.Turn.ID, p.Turn.ThreadID)
		}
		q.Cursor = page.NextCursor
	}
}
