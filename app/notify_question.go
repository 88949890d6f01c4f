package app

import (
	"context"

	"github.com/switchboard-hub/switchboard/app/notify"
	"github.com/switchboard-hub/switchboard/hub"
)

// question notifies of an agent's pending question once (unless
// notifications.question is off or the user is looking at its thread),
// as notify.Question tells it. A single choice (notify.SingleChoice)
// offers each choice as a button, answered as the window would (decidedBy
// "notification"); any other form, or a link, is answered in the window,
// which a click opens on the thread.
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
	choices := notify.SingleChoice(el)
	if choices != nil {
		n.choices[el.ID] = *choices
	}
	n.mu.Unlock()
	agent := "Agent"
	if th, err := n.svc.GetThread(ctx, notifyCaller, el.ThreadID); err == nil {
		agent = n.agentName(ctx, th.Agent)
	}
	n.deliver(notify.Question(el, agent, choices))
}

// answer answers question id with the choice at index of its
// notification, if that notification offered it (CONFLICT when it was
// answered meanwhile: logged, otherwise ignored).
func (n *notifier) answer(ctx context.Context, id, index string) {
	n.mu.Lock()
	q, offered := n.choices[id]
	n.mu.Unlock()
	a, ok := q.Answer(index)
	if !offered || !ok {
		n.log.Warn("an answer a question's notification did not offer; ignored", "question", id, "choice", index)
		return
	}
	if _, err := n.svc.AnswerElicitation(ctx, notifyCaller, id, a); err != nil {
		n.log.Info("an answer from a notification refused", "question", id, "code", hub.ErrorCode(err))
	}
}
