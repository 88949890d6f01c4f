//go:build unix

package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// elicitor is a recorder that also answers elicitation/create.
type elicitor struct {
	*recorder
	asked  chan CreateElicitationRequest
	answer func(ctx context.Context, req CreateElicitationRequest) (CreateElicitationResponse, error)
}

func (e *elicitor) CreateElicitation(ctx context.Context, req CreateElicitationRequest) (CreateElicitationResponse, error) {
	e.asked <- req
	return e.answer(ctx, req)
}

// initializeCaps returns the clientCapabilities a client sends in
// initialize.
func initializeCaps(t *testing.T, c Client) map[string]json.RawMessage {
	t.Helper()
	fromAgentR, fromAgentW := io.Pipe()
	toAgentR, toAgentW := io.Pipe()
	conn := NewClientConn(fromAgentR, toAgentW, c, ClientOptions{})
	defer func() { conn.Close(); fromAgentW.Close(); toAgentR.Close() }()
	done := make(chan error, 1)
	go func() { _, err := conn.Initialize(context.Background()); done <- err }()
	line, err := bufio.NewReader(toAgentR).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			ClientCapabilities map[string]json.RawMessage `json:"clientCapabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		t.Fatal(err)
	}
	io.WriteString(fromAgentW, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":1}}`+"\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return req.Params.ClientCapabilities
}

// TestElicitationCapability: elicitation {form, url} is advertised only
// by a Client that is an Elicitor.
func TestElicitationCapability(t *testing.T) {
	if got := string(initializeCaps(t, &elicitor{recorder: newRecorder()})["elicitation"]); got != `{"form":{},"url":{}}` {
		t.Errorf("an Elicitor advertised elicitation %s", got)
	}
	if got, ok := initializeCaps(t, newRecorder())["elicitation"]; ok {
		t.Errorf("a plain Client advertised elicitation %s", got)
	}
}

// TestElicitationOverTheWire: the fake agent's question reaches the
// Elicitor as sent and its answer reaches the agent; a Client that is no
// Elicitor answers method-not-found; an unknown mode is invalid params;
// a cancelled turn answers "cancel" at once.
func TestElicitationOverTheWire(t *testing.T) {
	const form = `elicit {"mode":"form","message":"Which?","toolCallId":"t1","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`
	el := &elicitor{recorder: newRecorder(), asked: make(chan CreateElicitationRequest, 4),
		answer: func(ctx context.Context, req CreateElicitationRequest) (CreateElicitationResponse, error) {
			return CreateElicitationResponse{Action: "accept", Content: map[string]json.RawMessage{"a": json.RawMessage(`"x"`)}}, nil
		}}
	a := launchFake(t, el, fakeOpts{})
	sid, _ := newSession(t, a)
	if _, err := prompt(t, a, sid, form); err != nil {
		t.Fatal(err)
	}
	req := <-el.asked
	if req.SessionID != sid || req.Mode != "form" || req.Message != "Which?" || req.ToolCallID != "t1" || !strings.Contains(string(req.RequestedSchema), `"a"`) {
		t.Errorf("request %+v", req)
	}
	if got := el.lastMessage(); got != `elicit: {"action":"accept","content":{"a":"x"}}` {
		t.Errorf("the agent got %q", got)
	}
	if _, err := prompt(t, a, sid, `elicit {"mode":"shell","message":"m"}`); err != nil {
		t.Fatal(err)
	}
	if got := el.lastMessage(); got != "elicit: error -32602" {
		t.Errorf("unknown mode: the agent got %q", got)
	}

	el.answer = func(ctx context.Context, _ CreateElicitationRequest) (CreateElicitationResponse, error) {
		<-ctx.Done() // nobody answers
		return CreateElicitationResponse{}, ctx.Err()
	}
	done := make(chan string, 1)
	go func() { stop, _ := prompt(t, a, sid, form); done <- stop }()
	<-el.asked
	if _, err := a.Cancel(context.Background(), sid); err != nil {
		t.Fatal(err)
	}
	<-done
	if got := el.lastMessage(); got != `elicit: {"action":"cancel"}` {
		t.Errorf("a cancelled turn: the agent got %q", got)
	}

	plain := newRecorder()
	b := launchFake(t, plain, fakeOpts{})
	sid, _ = newSession(t, b)
	if _, err := prompt(t, b, sid, form); err != nil {
		t.Fatal(err)
	}
	if got := plain.lastMessage(); got != "elicit: error -32601" {
		t.Errorf("no Elicitor: the agent got %q", got)
	}
}
