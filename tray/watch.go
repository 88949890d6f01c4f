package tray

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// ClientID is the X-Client-ID the tray sends. Its decisions are recorded
// as decidedBy "tray" only with the secret of the app that started it
// (Watcher.TraySecret), else as "client:switchboard-tray".
const ClientID = "switchboard-tray"

// Clock is the time the Watcher uses for its backoff and its publishing
// rate; tests pass a fake.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// publishInterval is the least time between two published menus: a burst
// of changes becomes one update at most this late, well under the 500 ms
// the menu must follow the hub within.
const publishInterval = 100 * time.Millisecond

// requestTimeout bounds every call but the event stream.
const requestTimeout = 10 * time.Second

// Watcher keeps a Model in step with the hub found in DataDir and publishes
// its Menu. It is a client of the hub through hub/client: it finds the hub
// through hub.json and the token file (client.Discover), opens
// GET /v1/events?scope=all, loads a snapshot (pending permissions, threads,
// running turns, agents), resumes with Last-Event-ID after a drop, and
// reconnects with exponential backoff (capped at 5 s) while the menu says
// the hub is unreachable. No error stops it; only ctx does.
type Watcher struct {
	DataDir string
	HTTP    client.Doer    // nil: hub/client's lean default (a proven connection per request)
	Clock   Clock          // nil: the real clock
	Log     *slog.Logger   // nil: slog.Default()
	Backoff client.Backoff // zero: client.DefaultBackoff()
	// IdleTimeout drops an event stream silent for that long, and gives
	// up on a hub that takes the connection but does not answer it;
	// 0: client.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxEventBytes caps one event of the stream; 0:
	// client.DefaultMaxEventBytes. A longer event is skipped: the tray
	// follows the hub live from the next snapshot.
	MaxEventBytes int
	// TraySecret is the per-launch secret the desktop app handed this tray
	// (--secret-fd), sent with every request; "" for a tray started by hand.
	TraySecret string
	// Publish receives each new menu, never two equal in a row, from the
	// Watcher's goroutine. It must not block for long.
	Publish func(Menu)

	once sync.Once
	in   chan input // see inbox

	mu     sync.Mutex
	client *client.Client // of the hub last found; nil before
}

// input is one thing the model learns: exactly one field is set.
type input struct {
	snapshot   *Snapshot
	event      *hub.Event
	thread     *hub.Thread
	permission *hub.Permission
	disconnect string
}

func (w *Watcher) clock() Clock {
	if w.Clock == nil {
		return realClock{}
	}
	return w.Clock
}

func (w *Watcher) log() *slog.Logger {
	if w.Log == nil {
		return slog.Default()
	}
	return w.Log
}

// inbox is the model's input queue, made on first use.
func (w *Watcher) inbox() chan input {
	w.once.Do(func() { w.in = make(chan input, 256) })
	return w.in
}

// Run watches the hub until ctx is done. Call it once.
func (w *Watcher) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { w.connectLoop(ctx) })
	w.modelLoop(ctx)
	cancel()
	wg.Wait()
}

// modelLoop owns the model: it applies inputs and publishes the menu, at
// most once per publishInterval.
func (w *Watcher) modelLoop(ctx context.Context) {
	m := NewModel()
	var last *Menu
	var lastAt time.Time
	var timer <-chan time.Time // pending publish
	asked := map[string]bool{} // thread ids already fetched
	publish := func() {
		menu := m.Menu()
		lastAt = w.clock().Now()
		if last != nil && reflect.DeepEqual(*last, menu) {
			return
		}
		last = &menu
		if w.Publish != nil {
			w.Publish(menu)
		}
	}
	publish()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer:
			timer = nil
			publish()
		case in := <-w.inbox():
			switch {
			case in.snapshot != nil:
				m.Connect(*in.snapshot)
				clear(asked)
			case in.event != nil:
				m.Apply(*in.event)
			case in.thread != nil:
				m.SetThread(*in.thread)
			case in.permission != nil:
				m.SetPermission(*in.permission)
			default:
				m.Disconnect(in.disconnect)
			}
			for _, id := range m.UnknownThreads() {
				if !asked[id] {
					asked[id] = true
					go w.fetchThread(ctx, id)
				}
			}
			if timer == nil {
				wait := publishInterval - w.clock().Now().Sub(lastAt)
				if wait <= 0 {
					publish()
				} else {
					timer = w.clock().After(wait)
				}
			}
		}
	}
}

func (w *Watcher) send(ctx context.Context, in input) {
	select {
	case w.inbox() <- in:
	case <-ctx.Done():
	}
}

// fetchThread learns a thread's agent and title for the menu.
func (w *Watcher) fetchThread(ctx context.Context, id string) {
	c := w.Client()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	t, err := c.Thread(ctx, id)
	if err != nil {
		w.log().Debug("tray: reading a thread failed", "thread", id, "err", err)
		return
	}
	w.send(ctx, input{thread: &t})
}

// Client is the client of the hub last found, nil before the first.
func (w *Watcher) Client() *client.Client {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.client
}

// clientFor is the tray's client of h: every client's resources
// (?scope=all), as switchboard-tray, with the app's secret when it has one.
// ForHubLean: the tray makes a few requests a minute, and net/http's
// Client and Transport would be ~1.7 MiB of its resident binary
// (docs/PERFORMANCE.md "The desktop's footprint"); nothing in the tray may
// build an http.Client, or they are linked again (TestTrayLinksNoHTTPClient).
func (w *Watcher) clientFor(h client.Hub) *client.Client {
	return client.ForHubLean(h, client.Options{ClientID: ClientID, All: true, TraySecret: w.TraySecret, HTTP: w.HTTP, IdleTimeout: w.IdleTimeout, MaxEventBytes: w.MaxEventBytes})
}

func (w *Watcher) idleTimeout() time.Duration {
	if w.IdleTimeout > 0 {
		return w.IdleTimeout
	}
	return client.DefaultIdleTimeout
}

// connectLoop finds the hub, streams its events into w.in and reconnects,
// until ctx is done.
func (w *Watcher) connectLoop(ctx context.Context) {
	bo := w.Backoff
	if bo.Min <= 0 || bo.Max <= 0 {
		bo = client.DefaultBackoff()
	}
	after := int64(-1)     // the last seq seen; -1: none yet (start live)
	var last hub.Discovery // the hub after belongs to
	lastReason := ""
	for ctx.Err() == nil {
		err := w.connectOnce(ctx, &last, &after, &bo)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, client.ErrResync) {
			w.log().Info("tray: event stream fell behind, resuming", "after", after)
			continue
		}
		if errors.Is(err, client.ErrLineTooLong) {
			// Resuming would meet the same event again, forever: follow
			// the hub live instead; the snapshot taken on connecting
			// holds what the skipped events changed.
			w.log().Warn("tray: an event is longer than the tray reads; following the hub live from a new snapshot", "after", after)
			after = -1
			continue
		}
		reason := troubleReason(err)
		if reason != lastReason {
			w.log().Warn("tray: hub unreachable", "reason", reason, "err", err)
			lastReason = reason
		}
		w.send(ctx, input{disconnect: reason})
		select {
		case <-w.clock().After(bo.Next()):
		case <-ctx.Done():
			return
		}
	}
}

// connectOnce makes one connection: discovery, the event stream, the
// snapshot once the stream is open, then events until the stream ends.
//
// The stream resumes after the last seq seen (Last-Event-ID) when the hub
// is the same process as before, so a dropped connection or a resync loses
// nothing. A different hub (another pid or address: a restart, perhaps on
// a fresh database whose seqs start over) is followed live from now: the
// snapshot taken once the stream is open is its whole state.
func (w *Watcher) connectOnce(ctx context.Context, last *hub.Discovery, after *int64, bo *client.Backoff) error {
	h, err := client.Discover(w.DataDir)
	if err != nil {
		return err
	}
	if h.Discovery != *last {
		*last, *after = h.Discovery, -1
	}
	c := w.clientFor(h)
	w.mu.Lock()
	w.client = c
	w.mu.Unlock()
	w.log().Debug("tray: opening the event stream", "after", *after)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A hub that takes the connection but does not answer it is given up
	// on like a stream gone silent.
	hung := time.AfterFunc(w.idleTimeout(), cancel)
	s, err := c.Events(ctx, *after, client.StreamOptions{})
	if !hung.Stop() {
		if err == nil {
			s.Close()
		}
		return fmt.Errorf("%w: no answer to GET /v1/events within %v", client.ErrIdle, w.idleTimeout())
	}
	if err != nil {
		return err
	}
	defer s.Close()

	// The stream is open, so no event after the snapshot is missed;
	// events before it that arrive later converge (Model.Apply).
	sctx, scancel := context.WithTimeout(ctx, requestTimeout)
	snap, err := snapshot(sctx, c)
	scancel()
	if err != nil {
		return err
	}
	w.log().Info("tray: connected", "hub", h, "permissions", len(snap.Permissions), "running", len(snap.Running))
	bo.Reset()
	w.send(ctx, input{snapshot: &snap})

	for {
		ev, err := s.Next()
		*after = max(*after, s.LastID())
		if err != nil {
			return err
		}
		w.log().Debug("tray: event", "seq", ev.Seq, "type", ev.Type)
		w.send(ctx, input{event: &ev})
	}
}

// maxThreadPages bounds the threads a snapshot lists: the tray needs the
// running threads, which are the most recently active, so the first pages
// are enough.
const maxThreadPages = 10

// snapshot reads what the tray shows from the hub: every client's pending
// permissions, threads (newest first, at most maxThreadPages pages of
// 100), the running threads' running turns and the agents.
func snapshot(ctx context.Context, c *client.Client) (Snapshot, error) {
	var s Snapshot
	var err error
	if s.Permissions, err = c.Permissions(ctx, hub.PermissionPending); err != nil {
		return s, err
	}
	qs, err := c.ElicitationsPage(ctx, hub.ElicitationQuery{Status: hub.ElicitationPending})
	if err != nil && !client.IsCode(err, hub.CodeNotFound) { // an older hub has none
		return s, err
	}
	s.Questions = qs.Elicitations
	cursor := ""
	for range maxThreadPages {
		page, err := c.Threads(ctx, 100, cursor)
		if err != nil {
			return s, err
		}
		s.Threads = append(s.Threads, page.Threads...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	for _, t := range s.Threads {
		if t.Status != hub.ThreadRunning {
			continue
		}
		turns, err := c.History(ctx, t.ID, false)
		if client.IsCode(err, hub.CodeNotFound) { // deleted meanwhile
			continue
		}
		if err != nil {
			return s, err
		}
		for i := len(turns) - 1; i >= 0; i-- {
			if turns[i].Status == hub.TurnRunning {
				s.Running = append(s.Running, turns[i].Turn)
				break
			}
		}
	}
	// The agents' display names are a nicety: without them the menu shows ids.
	s.Agents, _ = c.Agents(ctx)
	return s, nil
}

// troubleReason is the short phrase the menu shows for a failed connection.
func troubleReason(err error) string {
	var ae *client.Error
	var de *client.DataDirError
	var ue *client.UnreachableError
	var nh *client.NotHubError
	var ne net.Error
	switch {
	case errors.As(err, &nh):
		return "what answers at hub.json's address does not know the token"
	case errors.Is(err, client.ErrNoHub):
		return ReasonNotRunning
	case errors.As(err, &de):
		return "cannot read hub.json or the token"
	case errors.As(err, &ae) && ae.Status == http.StatusUnauthorized:
		return "the hub refused the token"
	case errors.As(err, &ae):
		return "the hub answered " + cmp.Or(ae.Code, http.StatusText(ae.Status))
	case errors.Is(err, client.ErrIdle):
		return "the hub stopped answering"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the hub closed the connection"
	case errors.As(err, &ue), errors.As(err, &ne):
		return "cannot connect"
	}
	return "connection lost"
}

// Decide sends a decision on permission id through the hub last found and
// feeds the answer to the model at once (its event follows anyway). d
// must have exactly one of OptionID and Outcome; with Remember the hub
// also adds a rule, logged with the config rule that shadows it, if any.
func (w *Watcher) Decide(ctx context.Context, id string, d hub.Decision) error {
	if (d.OptionID == "") == (d.Outcome == "") {
		return fmt.Errorf("tray: a decision needs exactly one of optionId and outcome, got %+v", d)
	}
	c := w.Client()
	if c == nil {
		return errors.New("tray: no hub")
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	r, err := c.DecideResult(ctx, id, d)
	if err != nil {
		return err
	}
	if r.Rule != nil {
		w.log().Info("tray: decision remembered", "permission", id, "rule", r.Rule.ID, "scope", r.Rule.Scope,
			"decision", r.Rule.Decision, "shadowedBy", r.ShadowedBy)
	}
	w.send(ctx, input{permission: &r.Permission})
	return nil
}

// CancelTurn cancels a running turn through the hub last found.
func (w *Watcher) CancelTurn(ctx context.Context, turnID string) error {
	c := w.Client()
	if c == nil {
		return errors.New("tray: no hub")
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	_, err := c.CancelTurn(ctx, turnID)
	return err
}

// QuitHub asks the hub to shut down gracefully (POST /v1/shutdown); the
// tray stays, showing the hub as unreachable until one starts again.
func (w *Watcher) QuitHub(ctx context.Context) error {
	c := w.Client()
	if c == nil {
		return errors.New("tray: no hub")
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return c.Shutdown(ctx)
}
