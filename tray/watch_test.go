package tray

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// fakeClock is a Clock that moves only when told. It records every delay
// asked of After.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	asked   []time.Duration
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, d)
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{c.now.Add(d), ch})
	return ch
}

// Advance moves the clock and fires the timers that are due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

func (c *fakeClock) delays() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

// menus collects published menus.
type menus struct {
	mu  sync.Mutex
	all []Menu
	ch  chan Menu
}

func newMenus() *menus { return &menus{ch: make(chan Menu, 1000)} }

func (m *menus) publish(menu Menu) {
	m.mu.Lock()
	m.all = append(m.all, menu)
	m.mu.Unlock()
	m.ch <- menu
}

// waitFor returns the first published menu (from now on) that ok accepts,
// failing the test after timeout of real time.
func (m *menus) waitFor(t *testing.T, what string, timeout time.Duration, ok func(Menu) bool, logs ...func() string) Menu {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case menu := <-m.ch:
			if ok(menu) {
				return menu
			}
		case <-deadline:
			m.mu.Lock()
			defer m.mu.Unlock()
			var last Menu
			if len(m.all) > 0 {
				last = m.all[len(m.all)-1]
			}
			for _, l := range logs {
				t.Log(l())
			}
			t.Fatalf("no menu %s within %v; last: %s", what, timeout, dump(last))
			return Menu{}
		}
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The menu reflects each change within 500 ms: a burst is published at
// once, then at most every publishInterval, and nothing equal twice.
func TestPublishRate(t *testing.T) {
	clk := newFakeClock()
	got := newMenus()
	w := &Watcher{Clock: clk, Publish: got.publish, Log: quietLog()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { w.modelLoop(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	first := <-got.ch
	if first.Icon != IconTrouble {
		t.Fatalf("first menu %s", dump(first))
	}
	clk.Advance(time.Second)
	w.inbox() <- input{snapshot: &Snapshot{Threads: snap().Threads}}
	if m := <-got.ch; m.Icon != IconIdle {
		t.Fatalf("connected menu %s", dump(m))
	}
	// Two changes right after: held back until publishInterval has passed
	// since the last publication, then published together.
	w.inbox() <- input{event: &hub.Event{Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1"}}
	w.inbox() <- input{event: ptr(permEvent(hub.EventPermissionRequired, perm("pe1", "th1", "tu1", "x", "allow_once")))}
	testkit.Eventually(t, 10*time.Second, "the watcher to wait on the clock", func() bool { return clk.pending() > 0 })
	select {
	case m := <-got.ch:
		t.Fatalf("published before the interval: %s", dump(m))
	case <-time.After(20 * time.Millisecond):
	}
	clk.Advance(publishInterval)
	m := <-got.ch
	if m.Icon != IconNeedsYou || m.Status != "1 agent working · 1 approval waiting" {
		t.Fatalf("menu %s", dump(m))
	}
	for _, d := range clk.delays() {
		if d > 500*time.Millisecond {
			t.Errorf("a change waited %v to be shown", d)
		}
	}
	// An event that changes nothing publishes nothing.
	clk.Advance(time.Second)
	w.inbox() <- input{event: &hub.Event{Type: "message_delta", ThreadID: "th1", TurnID: "tu1"}}
	select {
	case m := <-got.ch:
		t.Fatalf("published an unchanged menu: %s", dump(m))
	case <-time.After(20 * time.Millisecond):
	}
}

// The watcher against a fake hub: connects, follows events, shows trouble
// when the hub goes, backs off (250 ms doubling, capped at 5 s), finds the
// hub again at a new address and resumes with Last-Event-ID.
func TestWatcherReconnects(t *testing.T) {
	h := newFakeHub(t)
	h.threads = []hub.Thread{{ID: "th1", Agent: "claude", Title: "Fix", Status: "idle"}}
	clk := newFakeClock()
	got := newMenus()
	w := &Watcher{DataDir: h.dir, TraySecret: testTraySecret, Clock: clk, Publish: got.publish, Log: quietLog()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	// The publish timer runs on the fake clock: keep it moving.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				clk.Advance(50 * time.Millisecond)
			}
		}
	}()

	got.waitFor(t, "idle", 5*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	h.pushCur(sse(10, hub.EventTurnStarted, `"input":"go"`))
	m := got.waitFor(t, "working", 5*time.Second, func(m Menu) bool { return m.Icon == IconWorking })
	if m.Turns[0].Title != "Claude Code: Fix" {
		t.Errorf("turn title %q", m.Turns[0].Title)
	}
	h.pushCur(sse(11, hub.EventPermissionRequired, `"permission":{"id":"pe1","threadId":"th1","turnId":"tu1","status":"pending","toolCall":{"title":"make clean"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}`))
	m = got.waitFor(t, "needs you", 5*time.Second, func(m Menu) bool { return m.Icon == IconNeedsYou })
	if m.Title != "1" || m.Permissions[0].Title != "Claude Code: make clean" {
		t.Errorf("menu %s", dump(m))
	}
	// A resync: the same hub, resumed at once after seq 11, nothing lost.
	h.pushCur("id: 11\nevent: resync\ndata: {\"seq\":11,\"type\":\"resync\"}\n\n")
	h.push(sse(12, hub.EventTurnCompleted, `"turn":{"id":"tu1","status":"completed"}`))
	got.waitFor(t, "turn completed after the resync", 5*time.Second, func(m Menu) bool { return m.Connected && len(m.Turns) == 0 })
	h.mu.Lock()
	if ids := slices.Clone(h.lastIDs); !slices.Equal(ids, []string{"|after=-1", "11|after="}) {
		t.Errorf("resume points %q, want live then Last-Event-ID 11", ids)
	}
	h.mu.Unlock()
	got.mu.Lock()
	for _, m := range got.all {
		if m.Icon == IconTrouble && m.Status != "Hub unreachable: connecting" {
			t.Errorf("a resync showed trouble: %s", m.Status)
		}
	}
	got.mu.Unlock()

	// The hub goes away (hub.json stays behind, as after kill -9).
	h.srv.CloseClientConnections()
	h.srv.Close()
	m = got.waitFor(t, "trouble", 5*time.Second, func(m Menu) bool { return m.Icon == IconTrouble })
	if !strings.HasPrefix(m.Status, "Hub unreachable") || len(m.Permissions) != 0 {
		t.Errorf("trouble menu %s", dump(m))
	}
	// Let it retry a while: the delays grow to 5 s and stay there.
	var backoffs []time.Duration
	if !testkit.Until(10*time.Second, func() bool {
		backoffs = backoffs[:0]
		for _, d := range clk.delays() {
			if d > publishInterval {
				backoffs = append(backoffs, d)
			}
		}
		return len(backoffs) >= 7
	}) {
		t.Fatalf("only %d retries: %v", len(backoffs), backoffs)
	}
	ms := time.Millisecond
	want := []time.Duration{250 * ms, 500 * ms, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if !slices.Equal(backoffs[:7], want) {
		t.Fatalf("backoff %v, want %v", backoffs[:7], want)
	}

	// A new hub on another port, same data dir: found, followed live (its
	// snapshot is its state).
	h2 := newFakeHub(t)
	h2.dir = h.dir
	h2.perms = []hub.Permission{perm("pe2", "th1", "tu1", "deploy", "allow_once", "reject_once")}
	h2.threads = h.threads
	h2.writeDiscovery(h2.srv.URL)
	m = got.waitFor(t, "reconnected", 10*time.Second, func(m Menu) bool { return m.Connected })
	if len(m.Permissions) != 1 || m.Permissions[0].ID != "pe2" {
		t.Errorf("after reconnect %s", dump(m))
	}
	h2.mu.Lock()
	ids := slices.Clone(h2.lastIDs)
	h2.mu.Unlock()
	if len(ids) == 0 || ids[0] != "|after=-1" {
		t.Errorf("a new hub was asked for %q, want live events", ids)
	}
	// A decision from the menu goes out as the tray and shows at once.
	if err := w.Decide(ctx, "pe2", *m.Permissions[0].Approve); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "decided", 5*time.Second, func(m Menu) bool { return m.Connected && len(m.Permissions) == 0 })
	h2.mu.Lock()
	defer h2.mu.Unlock()
	if len(h2.decisions) != 1 || h2.decisions[0] != `pe2 {"optionId":"allow_once-id"} secret=true` {
		t.Errorf("decisions %q", h2.decisions)
	}
}

func TestTroubleReason(t *testing.T) {
	dir := t.TempDir()
	_, err := client.Discover(dir)
	if r := troubleReason(err); r != "no hub is running" {
		t.Errorf("no hub: %q", r)
	}
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	c := (&Watcher{}).clientFor(client.NewHub(url, "t"))
	if r := troubleReason(c.Healthz(context.Background())); r != "cannot connect" {
		t.Errorf("refused: %q", r)
	}
	if _, err := c.Events(context.Background(), -1, client.StreamOptions{}); troubleReason(err) != "cannot connect" {
		t.Errorf("stream refused: %q (%v)", troubleReason(err), err)
	}
	if r := troubleReason(io.ErrUnexpectedEOF); r != "the hub closed the connection" {
		t.Errorf("eof: %q", r)
	}
	if r := troubleReason(&client.Error{Status: 500, Code: "INTERNAL"}); r != "the hub answered INTERNAL" {
		t.Errorf("500: %q", r)
	}
	if r := troubleReason(&client.Error{Status: 502}); r != "the hub answered Bad Gateway" {
		t.Errorf("502 without a body: %q", r)
	}
	if r := troubleReason(client.ErrIdle); r != "the hub stopped answering" {
		t.Errorf("idle: %q", r)
	}
	if r := troubleReason(errors.New("x")); r != "connection lost" {
		t.Errorf("other: %q", r)
	}
	if err := os.WriteFile(filepath.Join(dir, "hub.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = client.Discover(dir)
	if r := troubleReason(err); r != "cannot read hub.json or the token" {
		t.Errorf("bad hub.json: %q", r)
	}
}

// runWatcher runs w (on the real clock) until the test ends.
func runWatcher(t *testing.T, w *Watcher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// Odd events (a data line that is not JSON, payload fields of another
// shape, a frame without an id) neither stop the tray nor lose their
// seqs: it follows the next events, and a dropped stream resumes after
// the last one.
func TestWatcherOddEvents(t *testing.T) {
	h := newFakeHub(t)
	h.threads = []hub.Thread{{ID: "th1", Agent: "claude", Title: "Fix", Status: "idle"}}
	got := newMenus()
	runWatcher(t, &Watcher{DataDir: h.dir, Publish: got.publish, Log: quietLog()})
	got.waitFor(t, "idle", 5*time.Second, func(m Menu) bool { return m.Icon == IconIdle })

	h.pushCur("id: 3\nevent: x\ndata: {not json\n\n")
	h.pushCur("data: {not json either\n\n")
	h.pushCur(sse(4, hub.EventPermissionRequired, `"permission":"a string from the future"`))
	h.pushCur(sse(5, hub.EventThreadUpdated, `"thread":[1,2]`))
	h.pushCur(sse(6, hub.EventConfigError, `"message":{"text":"?"}`))
	h.pushCur(sse(7, hub.EventTurnStarted, `"input":"go"`))
	h.pushCur(sse(8, hub.EventPermissionRequired, `"permission":{"id":"pe1","threadId":"th1","turnId":"tu1","status":"pending","toolCall":{"title":"ls"},"options":[]}`))
	m := got.waitFor(t, "the events after the odd ones", 5*time.Second, func(m Menu) bool {
		return m.Icon == IconNeedsYou && len(m.Turns) == 1
	})
	if m.Turns[0].Title != "Claude Code: Fix" || m.Permissions[0].Title != "Claude Code: ls" || m.Status != "1 agent working · 1 approval waiting" {
		t.Errorf("menu %s", dump(m))
	}
	h.pushCur("CLOSE")
	got.waitFor(t, "trouble", 5*time.Second, func(m Menu) bool { return m.Status == "Hub unreachable: the hub closed the connection" })
	got.waitFor(t, "reconnected", 5*time.Second, func(m Menu) bool { return m.Connected })
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Equal(h.lastIDs, []string{"|after=-1", "8|after="}) {
		t.Errorf("resume points %q, want live then Last-Event-ID 8", h.lastIDs)
	}
}

// A stream is dropped once silent for the idle timeout, not while the
// hub pings it; a hub that takes the connection but never answers is
// given up on too. Both show "the hub stopped answering".
func TestWatcherIdleStream(t *testing.T) {
	const idle = 500 * time.Millisecond
	h := newFakeHub(t)
	got := newMenus()
	runWatcher(t, &Watcher{DataDir: h.dir, IdleTimeout: idle, Publish: got.publish, Log: quietLog()})
	got.waitFor(t, "idle", 5*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	start := time.Now()
	for range 4 {
		time.Sleep(idle / 3)
		h.pushCur(": ping\n\n") // pings keep it open
	}
	m := got.waitFor(t, "trouble", 5*time.Second, func(m Menu) bool { return m.Icon == IconTrouble })
	if d := time.Since(start); d < 4*idle/3 {
		t.Errorf("dropped after %v despite pings", d)
	}
	if m.Status != "Hub unreachable: the hub stopped answering" {
		t.Errorf("status %q", m.Status)
	}
}

func TestWatcherHungHub(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(srv.Close)
	h := newFakeHub(t)
	h.writeDiscovery(srv.URL)
	got := newMenus()
	start := time.Now()
	runWatcher(t, &Watcher{DataDir: h.dir, IdleTimeout: 100 * time.Millisecond, Publish: got.publish, Log: quietLog()})
	got.waitFor(t, "trouble", 5*time.Second, func(m Menu) bool { return m.Status == "Hub unreachable: the hub stopped answering" })
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("gave up after %v", d)
	}
}

// An event longer than the tray reads is not resumed forever: the tray
// reconnects live, with a new snapshot, and follows the events after it.
func TestWatcherEventTooLong(t *testing.T) {
	h := newFakeHub(t)
	h.threads = []hub.Thread{{ID: "th1", Agent: "claude", Title: "Fix", Status: "idle"}}
	got := newMenus()
	runWatcher(t, &Watcher{DataDir: h.dir, MaxEventBytes: 4 << 10, Publish: got.publish, Log: quietLog()})
	got.waitFor(t, "idle", 5*time.Second, func(m Menu) bool { return m.Icon == IconIdle })
	h.pushCur(sse(3, hub.EventTurnStarted, `"input":"go"`))
	h.pushCur(sse(4, hub.EventMessageDelta, `"text":"`+strings.Repeat("x", 8<<10)+`"`))
	h.push(sse(5, hub.EventPermissionRequired, `"permission":{"id":"pe1","threadId":"th1","turnId":"tu1","status":"pending","toolCall":{"title":"ls"},"options":[]}`))
	got.waitFor(t, "the event after the long one", 5*time.Second, func(m Menu) bool { return m.Icon == IconNeedsYou })
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Equal(h.lastIDs, []string{"|after=-1", "|after=-1"}) {
		t.Errorf("resume points %q, want live, then live again past the long event", h.lastIDs)
	}
}
