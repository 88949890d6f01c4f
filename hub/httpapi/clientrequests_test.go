package httpapi

import (
	"context"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// fakeClientRequest is a client request pending in the fake, or answered.
type fakeClientRequest struct {
	threadID string
	answer   *hub.ClientAnswer
}

// addClientRequest makes a pending client request on the thread.
func (f *fake) addClientRequest(threadID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clientReqs == nil {
		f.clientReqs = make(map[string]*fakeClientRequest)
	}
	id := f.idLocked("cr")
	f.clientReqs[id] = &fakeClientRequest{threadID: threadID}
	return id
}

func (f *fake) clientAnswer(id string) *hub.ClientAnswer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clientReqs[id].answer
}

// AnswerClientRequest answers as the engine does: the owner only (even
// with scope=all), once.
func (f *fake) AnswerClientRequest(ctx context.Context, c hub.Caller, threadID, requestID string, a hub.ClientAnswer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return err
	}
	if _, err := f.threadLocked(hub.Caller{ClientID: c.ClientID}, threadID); err != nil {
		return err
	}
	r := f.clientReqs[requestID]
	if r == nil || r.threadID != threadID {
		return hub.Errorf(hub.CodeNotFound, "client request %s not found", requestID)
	}
	if r.answer != nil {
		return hub.Errorf(hub.CodeConflict, "client request already answered")
	}
	r.answer = &a
	return nil
}

func TestAnswerClientRequest(t *testing.T) {
	h := newHarness(t)
	var created struct{ Thread hub.Thread }
	h.mustJSON(h.call("POST", "/v1/threads", `{"agent":"echo","cwd":"/src/app","clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true}}`), 201, &created)
	th := created.Thread
	if got := h.fake.lastCreate.ClientCapabilities; got == nil || !got.FS.ReadTextFile || got.FS.WriteTextFile || !got.Terminal {
		t.Fatalf("clientCapabilities decoded as %+v", got)
	}
	r1, r2 := h.fake.addClientRequest(th.ID), h.fake.addClientRequest(th.ID)
	path := func(id string) string { return "/v1/threads/" + th.ID + "/client-requests/" + id }

	tests := []struct {
		name, path, body string
		opts             []reqOpt
		status           int
		code             string
	}{
		{"no body", path(r1), "", nil, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"neither", path(r1), `{}`, nil, 400, "INVALID_ARGUMENT"},
		{"both", path(r1), `{"result":{},"error":{"code":-32603,"message":"x"}}`, nil, 400, "INVALID_ARGUMENT"},
		{"error without message", path(r1), `{"error":{"code":-32603}}`, nil, 400, "INVALID_ARGUMENT"},
		{"unknown field", path(r1), `{"result":{},"extra":1}`, nil, 400, "INVALID_ARGUMENT"},
		{"another client", path(r1), `{"result":{}}`, []reqOpt{withHeader("X-Client-ID", "c2")}, 404, "NOT_FOUND"},
		{"another client with scope=all", path(r1) + "?scope=all", `{"result":{}}`, []reqOpt{withHeader("X-Client-ID", "window")}, 404, "NOT_FOUND"},
		{"unknown request", path("cr_nope"), `{"result":{}}`, nil, 404, "NOT_FOUND"},
		{"no token", path(r1), `{"result":{}}`, []reqOpt{noToken}, 401, "UNAUTHORIZED"},
		{"result", path(r1), `{"result":{"content":"buffer text"}}`, nil, 204, ""},
		{"second answer", path(r1), `{"result":{"content":"again"}}`, nil, 409, "CONFLICT"},
		{"error", path(r2), `{"error":{"code":-32002,"message":"no such buffer","data":{"path":"/x"}}}`, nil, 204, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.call("POST", tt.path, tt.body, tt.opts...)
			if r.status != tt.status || r.code() != tt.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
		})
	}
	if a := h.fake.clientAnswer(r1); a == nil || string(a.Result) != `{"content":"buffer text"}` || a.Error != nil {
		t.Errorf("answer of %s: %+v", r1, a)
	}
	a := h.fake.clientAnswer(r2)
	if a == nil || a.Error == nil || a.Error.Code != -32002 || a.Error.Message != "no such buffer" || string(a.Error.Data) != `{"path":"/x"}` || a.Result != nil {
		t.Errorf("answer of %s: %+v", r2, a)
	}
}

// ClientRequestParams finds nothing pending in the fake.
func (f *fake) ClientRequestParams(ctx context.Context, c hub.Caller, threadID, requestID string) (hub.ClientRequest, error) {
	return hub.ClientRequest{}, hub.Errorf(hub.CodeNotFound, "client request %s not found", requestID)
}
