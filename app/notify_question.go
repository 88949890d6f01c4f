package app

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// question notifies of an agent's pending question once (unless
// notifications.question is off or the user is looking at its thread):
// the agent's name, its message as plain text; no actions — a form or a
// link is answered in the window, which a click opens on the thread.
func (n *notifier) question(ctx context.Context, el hub.Elicitation) {
	if c := n.config().Notifications; el.Status != hub.ElicitationPending || !c.Enabled || !c.Question || n.looking(el.ThreadID) {
		return
	}
	n.mu.Lock()
	if n.asked[el.ID] {
		n.mu.Unlock()
		return
	}
	n.asked[el.ID] = true
	n.askedThread[el.ID] = el.ThreadID
	n.mu.Unlock()
	agent := "Agent"
	if th, err := n.svc.GetThread(ctx, notifyCaller, el.ThreadID); err == nil {
		agent = n.agentName(ctx, th.Agent)
	}
	what := "asks you a question"
	if el.Mode == hub.ElicitationURL {
		what = "asks you to open a link"
	}
	body := clip(el.Message, notifyBodyMax-40)
	if body == "" {
		body = "Open Switchboard to answer."
	}
	n.deliver(notification{ID: "ask:" + el.ID, Title: agent + " " + what, Body: body + "\nAnswer it in Switchboard.", ThreadID: el.ThreadID})
}
