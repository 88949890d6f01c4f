package editorbridge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
)

func TestEditorElicitation(t *testing.T) {
	for in, want := range map[string]elicitModes{
		`{"clientCapabilities":{"elicitation":{"form":{},"url":{}}}}`: {form: true, url: true},
		`{"clientCapabilities":{"elicitation":{"form":{}}}}`:          {form: true},
		`{"clientCapabilities":{"elicitation":{"form":null}}}`:        {},
		`{"clientCapabilities":{}}`:                                   {},
		`{"clientCapabilities":{"elicitation":"yes"}}`:                {},
	} {
		if got := editorElicitation(json.RawMessage(in)); got != want {
			t.Errorf("%s: %+v, want %+v", in, got, want)
		}
	}
}

// TestBridgeQuestions: an editor that serves forms gets the agent's form
// as elicitation/create (the hub's copy) and its answer reaches the hub;
// a link, which it does not serve, is not sent to it (it stays in the
// hub's inbox); a question answered in the hub first withdraws the
// editor's request.
func TestBridgeQuestions(t *testing.T) {
	form := `{"id":"el1","threadId":"th1","turnId":"tu1","mode":"form","message":"Which?","toolCallId":"c1","requestedSchema":{"type":"object","properties":{"b":{"type":"string"}}},"status":"pending"}`
	link := `{"id":"el2","threadId":"th1","turnId":"tu1","mode":"url","message":"Sign in","url":"https://example.com/x","status":"pending"}`
	late := `{"id":"el3","threadId":"th1","turnId":"tu1","mode":"form","message":"Late?","requestedSchema":{"type":"object","properties":{}},"status":"pending"}`
	answered := make(chan map[string]any, 4)
	withdrawn := make(chan struct{})
	lateAsked := make(chan struct{}) // the editor has the late question
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/threads/th1/turns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Switchboard-Turn-ID", "tu1")
		io.WriteString(w, sseEvent(5, "turn_started", "tu1", `"input":"hi"`))
		io.WriteString(w, sseEvent(6, "elicitation_required", "tu1", `"elicitation":`+link))
		io.WriteString(w, sseEvent(7, "elicitation_required", "tu1", `"elicitation":`+form))
		w.(http.Flusher).Flush()
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Error("no answer reached the hub")
		}
		io.WriteString(w, sseEvent(8, "elicitation_required", "tu1", `"elicitation":`+late))
		w.(http.Flusher).Flush()
		select {
		case <-lateAsked:
		case <-time.After(10 * time.Second):
			t.Error("the late question did not reach the editor")
		}
		io.WriteString(w, sseEvent(9, "elicitation_resolved", "tu1", `"elicitation":{"id":"el3","threadId":"th1","turnId":"tu1","mode":"form","status":"accepted"}`))
		w.(http.Flusher).Flush()
		select {
		case <-withdrawn:
		case <-time.After(10 * time.Second):
			t.Error("the editor's request was not withdrawn")
		}
		io.WriteString(w, sseEvent(10, "turn_completed", "tu1", `"turn":{"id":"tu1","status":"completed","stopReason":"end_turn"}`))
	})
	mux.HandleFunc("POST /v1/elicitations/{id}", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if id := r.PathValue("id"); id != "el1" {
			t.Errorf("an answer for %s", id)
		}
		if b, _ := json.Marshal(body); string(b) != `{"action":"accept","content":{"b":"main"}}` {
			t.Errorf("the hub got %s", b)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"elicitation":{"id":"el1","status":"accepted"}}`)
		answered <- body
	})
	editor, ed := inProcess(t, mux, Options{})
	ed.bridge.editorElicit = elicitModes{form: true}
	asked := make(chan acp.CreateElicitationRequest, 4)
	ed.mu.Lock()
	ed.answer = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method != acp.MethodElicitationCreate {
			return nil, acp.NewError(acp.CodeMethodNotFound, "no")
		}
		var req acp.CreateElicitationRequest
		json.Unmarshal(params, &req)
		asked <- req
		if req.Message == "Late?" {
			close(lateAsked)
			<-ctx.Done() // withdrawn by the bridge
			close(withdrawn)
			return nil, ctx.Err()
		}
		return acp.CreateElicitationResponse{Action: "accept", Content: map[string]json.RawMessage{"b": json.RawMessage(`"main"`)}}, nil
	}
	ed.mu.Unlock()
	stop, err := promptHi(t, editor)
	if err != nil || stop != "end_turn" {
		t.Fatalf("prompt: %q %v", stop, err)
	}
	req := <-asked
	if req.SessionID != "th1" || req.Mode != "form" || req.Message != "Which?" || req.ToolCallID != "c1" ||
		string(req.RequestedSchema) != `{"type":"object","properties":{"b":{"type":"string"}}}` {
		t.Errorf("the editor was asked %+v (%s)", req, req.RequestedSchema)
	}
	if late := <-asked; late.Message != "Late?" {
		t.Errorf("then %+v", late)
	}
	select {
	case extra := <-asked:
		t.Errorf("the editor was asked a link it does not serve: %+v", extra)
	default:
	}
}
