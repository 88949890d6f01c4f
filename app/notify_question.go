package app

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// maxQuestionChoices is how many choices a question may have to be
// answered from its notification: notification servers show a few
// buttons, and a choice left out would make the rest a wrong question.
const maxQuestionChoices = 3

// actionAnswer prefixes a question's choice in a notification's actions:
// "answer:<index>" into the choices the notification offered.
const actionAnswer = "answer:"

// question notifies of an agent's pending question once (unless
// notifications.question is off or the user is looking at its thread):
// the agent's name, its message as plain text. A single choice (one
// field of at most maxQuestionChoices choices: singleChoice) offers each
// choice as a button, answered as the window would (decidedBy
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
	field, values, labels := singleChoice(el)
	if len(values) > 0 {
		n.choices[el.ID] = questionChoices{field: field, values: values}
	}
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
	where := "\nAnswer it in Switchboard."
	if len(labels) > 0 {
		where = "\nAnswer here or in Switchboard."
	}
	n.deliver(notification{ID: "ask:" + el.ID, Title: agent + " " + what, Body: body + where, ThreadID: el.ThreadID, Choices: labels})
}

// questionChoices are what a question's notification offered: the field
// answered and the value of each button, in order.
type questionChoices struct {
	field  string
	values []string
}

// singleChoice is the one field of a form question whose only field is
// a string of 2 to maxQuestionChoices choices: its name, the choices'
// values and their labels (titles, else the values; clipped); empty for
// any other question.
func singleChoice(el hub.Elicitation) (field string, values, labels []string) {
	s := el.RequestedSchema
	if el.Mode != hub.ElicitationForm || s == nil || len(s.Properties) != 1 {
		return "", nil, nil
	}
	p := s.Properties[0]
	if p.Type != "string" {
		return "", nil, nil
	}
	for _, v := range p.Enum {
		values, labels = append(values, v), append(labels, clip(v, 40))
	}
	for _, c := range p.OneOf {
		label := c.Title
		if label == "" {
			label = c.Const
		}
		values, labels = append(values, c.Const), append(labels, clip(label, 40))
	}
	if len(values) < 2 || len(values) > maxQuestionChoices {
		return "", nil, nil
	}
	return p.Name, values, labels
}

// answer answers question id with the choice at index of its
// notification, if that notification offered it (CONFLICT when it was
// answered meanwhile: logged, otherwise ignored).
func (n *notifier) answer(ctx context.Context, id, index string) {
	n.mu.Lock()
	q, offered := n.choices[id]
	n.mu.Unlock()
	i, err := strconv.Atoi(index)
	if !offered || err != nil || i < 0 || i >= len(q.values) {
		n.log.Warn("an answer a question's notification did not offer; ignored", "question", id, "choice", index)
		return
	}
	v, _ := json.Marshal(q.values[i])
	a := hub.ElicitationAnswer{Action: "accept", Content: map[string]json.RawMessage{q.field: v}}
	if _, err := n.svc.AnswerElicitation(ctx, notifyCaller, id, a); err != nil {
		n.log.Info("an answer from a notification refused", "question", id, "code", hub.ErrorCode(err))
	}
}
