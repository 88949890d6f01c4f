package engine

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// URL-mode elicitations end twice: the user answers (opens the link, or
// declines), then the agent says the flow in the browser is over
// (elicitation/complete). The second end is the elicitation_completed
// event {elicitationId}: the window closes the question's "finish in your
// browser" state. A question still pending when the agent says complete
// (the user finished without answering here) is resolved "accepted" with
// decidedBy "agent" first. An id the hub never saw, or saw complete, is
// ignored.

// maxURLElicits bounds the URL questions a thread remembers waiting for
// their completion: an agent that never completes cannot grow it.
const maxURLElicits = 64

// noteURLElicitation remembers the hub's id of the agent's URL question.
func (c *threadClient) noteURLElicitation(acpID, hubID string) {
	if acpID == "" {
		return
	}
	c.rt.mu.Lock()
	defer c.rt.mu.Unlock()
	if c.rt.urlElicits == nil {
		c.rt.urlElicits = map[string]string{}
	}
	if len(c.rt.urlElicits) < maxURLElicits {
		c.rt.urlElicits[acpID] = hubID
	}
}

// ElicitationComplete implements acp.ElicitationCompleter. It runs on the
// agent's reader, so the commit is asynchronous.
func (c *threadClient) ElicitationComplete(_ context.Context, acpID string) {
	c.rt.mu.Lock()
	hubID, ok := c.rt.urlElicits[acpID]
	delete(c.rt.urlElicits, acpID)
	c.rt.mu.Unlock()
	if !ok {
		c.e.log.Debug("hub: elicitation/complete for an unknown elicitation", "thread", c.thread.ID, "elicitationId", acpID)
		return
	}
	e := c.e
	go func() {
		e.mu.Lock()
		er := e.elicits[hubID]
		e.mu.Unlock()
		turnID := ""
		if er != nil {
			<-er.stored
			turnID = er.el.TurnID
			// Lost races (an answer that came first) are CONFLICT: fine.
			_, _ = e.resolveElicitation(er, hub.ElicitationAccepted, hub.DecidedByAgent, nil)
		}
		ev, _ := hub.NewEvent(hub.EventElicitationCompleted, c.thread, turnID, e.now(), map[string]any{"elicitationId": hubID})
		if err := e.commit(&hub.Write{Events: []hub.Event{ev}}); err != nil {
			e.log.Warn("hub: elicitation completed: not stored", "thread", c.thread.ID, "err", err)
		}
	}()
}
