package notify

import (
	"encoding/json"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// MaxChoices is how many choices a question may have to be answered from
// its notification: notification servers show a few buttons, and a
// choice left out would make the rest a wrong question.
const MaxChoices = 3

// Choices are what a single-choice question's notification offers: the
// field answered, the value of each button and its label, in order.
type Choices struct {
	Field          string
	Values, Labels []string
}

// SingleChoice is the choices of a form question whose only field is a
// string of 2 to MaxChoices choices (labels: their titles, else their
// values; clipped); nil for any other question, answered in the window.
func SingleChoice(el hub.Elicitation) *Choices {
	s := el.RequestedSchema
	if el.Mode != hub.ElicitationForm || s == nil || len(s.Properties) != 1 {
		return nil
	}
	p := s.Properties[0]
	if p.Type != "string" {
		return nil
	}
	c := &Choices{Field: p.Name}
	for _, v := range p.Enum {
		c.Values, c.Labels = append(c.Values, v), append(c.Labels, Clip(v, 40))
	}
	for _, o := range p.OneOf {
		label := o.Title
		if label == "" {
			label = o.Const
		}
		c.Values, c.Labels = append(c.Values, o.Const), append(c.Labels, Clip(label, 40))
	}
	if len(c.Values) < 2 || len(c.Values) > MaxChoices {
		return nil
	}
	return c
}

// Answer is the answer the button at index (the action's part after
// ActionAnswer) gives; ok is false for a button not offered.
func (c Choices) Answer(index string) (a hub.ElicitationAnswer, ok bool) {
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= len(c.Values) {
		return a, false
	}
	v, _ := json.Marshal(c.Values[i])
	return hub.ElicitationAnswer{Action: "accept", Content: map[string]json.RawMessage{c.Field: v}}, true
}

// Question is the notification of agent's (its name) question el: its
// message as plain text, and c's labels as buttons when it is a single
// choice (SingleChoice; nil otherwise: a click opens the window on the
// thread, where it is answered).
func Question(el hub.Elicitation, agent string, c *Choices) Notification {
	what := "asks you a question"
	if el.Mode == hub.ElicitationURL {
		what = "asks you to open a link"
	}
	body := Clip(el.Message, BodyMax-40)
	if body == "" {
		body = "Open Switchboard to answer."
	}
	x := Notification{ID: QuestionID(el.ID), Title: agent + " " + what, ThreadID: el.ThreadID}
	if c != nil && len(c.Labels) > 0 {
		x.Choices = c.Labels
		x.Body = body + "\nAnswer here or in Switchboard."
	} else {
		x.Body = body + "\nAnswer it in Switchboard."
	}
	return x
}
