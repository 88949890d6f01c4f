package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// fakeElicitation is an elicitation pending in the fake, or answered.
type fakeElicitation struct {
	el     hub.Elicitation
	answer *hub.ElicitationAnswer
}

// addElicitation makes a pending form elicitation on the thread.
func (f *fake) addElicitation(threadID, schema string) string {
	s, err := hub.ParseElicitationSchema(json.RawMessage(schema))
	if err != nil {
		panic(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.elicits == nil {
		f.elicits = make(map[string]*fakeElicitation)
	}
	id := f.idLocked("el")
	f.elicits[id] = &fakeElicitation{el: hub.Elicitation{ID: id, ThreadID: threadID, Mode: hub.ElicitationForm,
		Message: "<b>hi</b>", RequestedSchema: s, Status: hub.ElicitationPending, CreatedAt: f.clock}}
	return id
}

func (f *fake) QueryElicitations(ctx context.Context, c hub.Caller, q hub.ElicitationQuery) (hub.ElicitationPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.ElicitationPage{}, err
	}
	var out []hub.Elicitation
	for _, e := range f.elicits {
		if _, err := f.threadLocked(c, e.el.ThreadID); err != nil {
			continue
		}
		if q.Status == "" || q.Status == e.el.Status {
			out = append(out, e.el)
		}
	}
	return hub.ElicitationPage{Elicitations: out}, nil
}

// AnswerElicitation answers as the engine does: visible threads only,
// once, content checked against the schema.
func (f *fake) AnswerElicitation(ctx context.Context, c hub.Caller, id string, a hub.ElicitationAnswer) (hub.Elicitation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Elicitation{}, err
	}
	e := f.elicits[id]
	if e == nil {
		return hub.Elicitation{}, hub.Errorf(hub.CodeNotFound, "elicitation %s not found", id)
	}
	if _, err := f.threadLocked(c, e.el.ThreadID); err != nil {
		return hub.Elicitation{}, hub.Errorf(hub.CodeNotFound, "elicitation %s not found", id)
	}
	if e.el.Status != hub.ElicitationPending {
		return hub.Elicitation{}, hub.Errorf(hub.CodeConflict, "elicitation already %s", e.el.Status)
	}
	if a.Action == hub.ElicitAccept {
		if err := hub.CheckElicitationContent(e.el.RequestedSchema, a.Content); err != nil {
			return hub.Elicitation{}, err
		}
	}
	e.answer = &a
	e.el.Status, e.el.DecidedBy = hub.ElicitationAccepted, hub.DecidedByOf(c)
	return e.el, nil
}

func TestElicitationsHTTP(t *testing.T) {
	h := newHarness(t)
	th := h.newThread("c1")
	id := h.fake.addElicitation(th, `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"required":["name"]}`)
	path := "/v1/elicitations/" + id

	var list hub.ElicitationPage
	h.mustJSON(h.call("GET", "/v1/elicitations?status=pending", ""), 200, &list)
	if len(list.Elicitations) != 1 || list.Elicitations[0].ID != id || list.Elicitations[0].Message != "<b>hi</b>" {
		t.Fatalf("list: %+v", list)
	}
	// The schema keeps the agent's field order on the wire.
	r := h.call("GET", "/v1/elicitations", "")
	if i, j := strings.Index(string(r.body), `"name"`), strings.Index(string(r.body), `"n":`); i < 0 || j < i {
		t.Errorf("field order lost: %s", r.body)
	}
	tests := []struct {
		name, body string
		opts       []reqOpt
		status     int
		code       string
		field      string
	}{
		{"unknown field", `{"action":"accept","extra":1}`, nil, 400, "INVALID_ARGUMENT", ""},
		{"required missing", `{"action":"accept","content":{"n":3}}`, nil, 400, "INVALID_ARGUMENT", "content.name"},
		{"wrong type", `{"action":"accept","content":{"name":"x","n":1.5}}`, nil, 400, "INVALID_ARGUMENT", "content.n"},
		{"not a field", `{"action":"accept","content":{"name":"x","evil":true}}`, nil, 400, "INVALID_ARGUMENT", "content.evil"},
		{"another client", `{"action":"accept","content":{"name":"x"}}`, []reqOpt{withHeader("X-Client-ID", "c2")}, 404, "NOT_FOUND", ""},
		{"accepted", `{"action":"accept","content":{"name":"x","n":2}}`, nil, 200, "", ""},
		{"late", `{"action":"decline"}`, nil, 409, "CONFLICT", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call("POST", path, tt.body, tt.opts...)
			if r.status != tt.status || r.code() != tt.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
			if tt.field != "" && !strings.Contains(string(r.body), `"field":"`+tt.field+`"`) {
				t.Errorf("the error does not name %s: %s", tt.field, r.body)
			}
		})
	}
	if e := h.fake.elicits[id]; e.el.DecidedBy != "client:c1" || string(e.answer.Content["name"]) != `"x"` {
		t.Errorf("recorded %+v / %+v", e.el, e.answer)
	}
}
