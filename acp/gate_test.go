package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// A Conn with MaxConcurrentRequests 2 runs two requests at once; the rest
// wait (never refused), notifications and unbounded requests keep flowing
// meanwhile, a waiting request the peer cancels is answered -32800 without
// its handler running, and every other request is answered in the end.
func TestConnBoundsConcurrentRequests(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	running, peak := 0, 0
	var handled []string
	notified := make(chan string, 10)
	started := make(chan struct{}, 10)
	h := funcHandler{
		req: func(ctx context.Context, method string, p json.RawMessage) (any, error) {
			if method == "free" {
				return "free", nil
			}
			mu.Lock()
			running++
			peak = max(peak, running)
			handled = append(handled, string(p))
			mu.Unlock()
			started <- struct{}{}
			<-release
			mu.Lock()
			running--
			mu.Unlock()
			return "done", nil
		},
		notify: func(_ context.Context, m string, _ json.RawMessage) { notified <- m },
	}
	c, p := newScripted(t, h, ConnOptions{MaxConcurrentRequests: 2, Unbounded: func(m string) bool { return m == "free" }})
	for i := 1; i <= 5; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"slow","params":%d}`, i, i))
	}
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":4}}`)
	p.send(`{"jsonrpc":"2.0","method":"note"}`)
	p.send(`{"jsonrpc":"2.0","id":9,"method":"free"}`)
	select {
	case m := <-notified:
		if m != "note" {
			t.Fatalf("notified %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a notification waited behind requests waiting for a slot")
	}
	p.expect(`{"jsonrpc":"2.0","id":9,"result":"free"}`)
	for range 2 {
		<-started
	}
	if r, w := c.gate.counts(); r != 2 || w != 3 {
		t.Fatalf("running %d, waiting %d; want 2 and 3", r, w)
	}
	// The answers are read as they come (the pipe holds none back), and
	// one handler ends at a time, so the order slots go to the waiting
	// requests is the order their handlers start: 3 first, then 5 (4 was
	// cancelled while it waited).
	got := make(chan map[string]string, 1)
	go func() {
		answers := map[string]string{}
		for range 5 {
			var m struct {
				ID     json.RawMessage
				Result string
				Error  *Error
			}
			json.Unmarshal([]byte(p.next()), &m)
			answers[string(m.ID)] = m.Result
			if m.Error != nil {
				answers[string(m.ID)] = fmt.Sprint(m.Error.Code)
			}
		}
		got <- answers
	}()
	release <- struct{}{}
	<-started
	release <- struct{}{}
	<-started
	release <- struct{}{}
	release <- struct{}{}
	var answers map[string]string
	select {
	case answers = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the five answers did not come")
	}
	want := map[string]string{"1": "done", "2": "done", "3": "done", "4": fmt.Sprint(CodeRequestCancelled), "5": "done"}
	if fmt.Sprint(answers) != fmt.Sprint(want) {
		t.Fatalf("answers %v, want %v", answers, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != 2 || len(handled) != 4 || fmt.Sprint(handled[2:]) != "[3 5]" {
		t.Fatalf("peak %d (want 2), handled %v (want 3 then 5 after 1 and 2; 4 was cancelled)", peak, handled)
	}
	// A request's slot is freed just after its answer is sent.
	if !testkit.Until(5*time.Second, func() bool { r, w := c.gate.counts(); return r == 0 && w == 0 }) {
		r, w := c.gate.counts()
		t.Fatalf("running %d, waiting %d after all answered", r, w)
	}
}
