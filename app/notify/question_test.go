package notify

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func form(props ...hub.ElicitationProperty) hub.Elicitation {
	return hub.Elicitation{ID: "el1", ThreadID: "th", Mode: hub.ElicitationForm, Message: "Which one?",
		RequestedSchema: &hub.ElicitationSchema{Type: "object", Properties: props}}
}

// TestSingleChoice: only a form whose one field is a string of 2 to
// MaxChoices choices gets buttons (titles, else values); each button
// answers its value, and a button not offered answers nothing.
func TestSingleChoice(t *testing.T) {
	oneOf := form(hub.ElicitationProperty{Name: "env", Type: "string",
		OneOf: []hub.ElicitationEnum{{Const: "prod", Title: "Production"}, {Const: "dev"}}})
	c := SingleChoice(oneOf)
	if c == nil || c.Field != "env" || !slices.Equal(c.Values, []string{"prod", "dev"}) || !slices.Equal(c.Labels, []string{"Production", "dev"}) {
		t.Fatalf("SingleChoice(oneOf) = %+v", c)
	}
	a, ok := c.Answer("1")
	if !ok || a.Action != "accept" || string(a.Content["env"]) != `"dev"` {
		t.Errorf("Answer(1) = %+v %v, want accept env=dev", a, ok)
	}
	for _, bad := range []string{"2", "-1", "x", ""} {
		if _, ok := c.Answer(bad); ok {
			t.Errorf("Answer(%q) offered", bad)
		}
	}
	for name, el := range map[string]hub.Elicitation{
		"one choice":   form(hub.ElicitationProperty{Name: "a", Type: "string", Enum: []string{"x"}}),
		"four choices": form(hub.ElicitationProperty{Name: "a", Type: "string", Enum: []string{"1", "2", "3", "4"}}),
		"two fields": form(hub.ElicitationProperty{Name: "a", Type: "string", Enum: []string{"1", "2"}},
			hub.ElicitationProperty{Name: "b", Type: "string", Enum: []string{"1", "2"}}),
		"not a string": form(hub.ElicitationProperty{Name: "a", Type: "number"}),
		"free text":    form(hub.ElicitationProperty{Name: "a", Type: "string"}),
		"a link":       {ID: "el1", Mode: hub.ElicitationURL, Message: "Open it"},
	} {
		if c := SingleChoice(el); c != nil {
			t.Errorf("%s: SingleChoice = %+v, want none", name, c)
		}
	}
}

// TestQuestion: the agent's message, with buttons and "Answer here" for a
// single choice, else "Answer it in Switchboard"; a link says so.
func TestQuestion(t *testing.T) {
	el := form(hub.ElicitationProperty{Name: "a", Type: "string", Enum: []string{"yes", "no"}})
	x := Question(el, "Fake", SingleChoice(el))
	if x.ID != "ask:el1" || x.Title != "Fake asks you a question" || x.Body != "Which one?\nAnswer here or in Switchboard." ||
		!slices.Equal(x.Choices, []string{"yes", "no"}) || x.ThreadID != "th" {
		t.Errorf("single choice: %+v", x)
	}
	link := hub.Elicitation{ID: "el2", Mode: hub.ElicitationURL}
	x = Question(link, "Fake", nil)
	if x.Title != "Fake asks you to open a link" || x.Body != "Open Switchboard to answer.\nAnswer it in Switchboard." || x.Choices != nil {
		t.Errorf("link: %+v", x)
	}
	long := hub.Elicitation{ID: "el3", Mode: hub.ElicitationForm, Message: strings.Repeat("é", 500)}
	if x = Question(long, "Fake", nil); len([]rune(strings.Split(x.Body, "\n")[0])) != BodyMax-40 {
		t.Errorf("a long message is not clipped to %d runes: %q", BodyMax-40, x.Body)
	}
}
