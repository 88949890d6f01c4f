package hostmirror

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Dial opens a host's link: a Client of the host's hub, its
// Options.LinkSecret set (so decisions forwarded through it are recorded
// there as "link:<surface>"). It is called again after every cut; an
// error leaves the host unreachable until the next try.
type Dial func(ctx context.Context) (*client.Client, error)

// Local is where the copies go.
type Local struct {
	// Mirror stores and publishes a Write of copies (engine.Mirror).
	Mirror func(w *hub.Write) error
	// HostSeq is the host seq of the last copy of host's stored
	// (store.HostSeq).
	HostSeq func(ctx context.Context, host string) (int64, error)
}

// Host states (HostState.State).
const (
	StateConnecting  = "connecting"
	StateConnected   = "connected"
	StateUnreachable = "unreachable"
)

// HostState is what the window shows of one host's link.
type HostState struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Since is when the state began (unreachable since …).
	Since time.Time `json:"since"`
	// Error is why the link is down (its last error), "" otherwise.
	Error string `json:"error,omitempty"`
}

// linkCaller is who the mirror is on a host: it sees every client's
// threads (scope=all).
var linkCaller = hub.Caller{ClientID: "switchboard-link", All: true}

// Hosts follows every host's stream into Local and holds the links the
// Router forwards through. Safe for concurrent use.
type Hosts struct {
	local   Local
	log     *slog.Logger
	backoff client.Backoff

	mu    sync.Mutex
	hosts map[string]*host
	stop  context.CancelFunc
	ctx   context.Context
	wg    sync.WaitGroup
}

type host struct {
	name string
	dial Dial
	stop context.CancelFunc

	mu    sync.Mutex
	c     *client.Client // nil while the link is down
	state HostState
	known map[string]bool // host thread ids copied since the link came up
	// changed is closed (and replaced) at every state change: tests and
	// the window wait on it.
	changed chan struct{}
}

// Options configure Hosts.
type Options struct {
	Logger *slog.Logger
	// Backoff spaces a host's reconnections (zero: client.DefaultBackoff).
	Backoff client.Backoff
}

// New is a Hosts copying into local, with no host yet (Add).
func New(local Local, o Options) *Hosts {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Backoff.Min == 0 {
		o.Backoff = client.DefaultBackoff()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hosts{local: local, log: o.Logger, backoff: o.Backoff, hosts: map[string]*host{}, ctx: ctx, stop: cancel}
}

// Add starts following host name through dial (replacing a host of that
// name). name must be a valid host name (hub.ValidHostName).
func (hs *Hosts) Add(name string, dial Dial) error {
	if !hub.ValidHostName(name) {
		return hub.Errorf(hub.CodeInvalidArgument, "host name %q: want [a-z0-9-]{1,32}, not %q", name, hub.LocalHost)
	}
	hs.Remove(name)
	ctx, cancel := context.WithCancel(hs.ctx)
	h := &host{name: name, dial: dial, stop: cancel, changed: make(chan struct{}),
		state: HostState{Name: name, State: StateConnecting, Since: time.Now()}}
	hs.mu.Lock()
	hs.hosts[name] = h
	hs.wg.Add(1)
	hs.mu.Unlock()
	go func() { defer hs.wg.Done(); hs.follow(ctx, h) }()
	return nil
}

// Remove stops following host name; its copies stay.
func (hs *Hosts) Remove(name string) {
	hs.mu.Lock()
	h := hs.hosts[name]
	delete(hs.hosts, name)
	hs.mu.Unlock()
	if h != nil {
		h.stop()
	}
}

// Close stops every link and waits for the followers to end.
func (hs *Hosts) Close() {
	hs.stop()
	hs.wg.Wait()
}

// States lists the hosts' states by name.
func (hs *Hosts) States() []HostState {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := make([]HostState, 0, len(hs.hosts))
	for _, h := range hs.hosts {
		h.mu.Lock()
		out = append(out, h.state)
		h.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Remote is host name's hub as the hub's interfaces, while its link is
// up: NOT_FOUND for a host not added, HostUnreachable while down.
func (hs *Hosts) Remote(name string) (*client.Remote, error) {
	hs.mu.Lock()
	h := hs.hosts[name]
	hs.mu.Unlock()
	if h == nil {
		return nil, hub.Errorf(hub.CodeNotFound, "no host named %q", name)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.c == nil {
		return nil, hub.HostUnreachable(name)
	}
	return h.c.Remote(), nil
}

// follow copies host h's stream until ctx ends, reconnecting with backoff.
func (hs *Hosts) follow(ctx context.Context, h *host) {
	b := hs.backoff
	for ctx.Err() == nil {
		err := hs.followOnce(ctx, h, &b)
		h.set(nil, StateUnreachable, err)
		if ctx.Err() != nil {
			return
		}
		hs.log.Info("host link down", "host", h.name, "err", err)
		t := time.NewTimer(b.Next())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// followOnce opens h's link and its stream after the last host seq kept,
// and copies it until either ends.
func (hs *Hosts) followOnce(ctx context.Context, h *host, b *client.Backoff) error {
	c, err := h.dial(ctx)
	if err != nil {
		return err
	}
	after, err := hs.local.HostSeq(ctx, h.name)
	if err != nil {
		return err
	}
	sub, err := c.Remote().Subscribe(ctx, linkCaller, "", after)
	if err != nil {
		return err
	}
	defer sub.Close()
	h.mu.Lock()
	h.known = map[string]bool{}
	h.mu.Unlock()
	h.set(c, StateConnected, nil)
	b.Reset()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-sub.Events():
			if !ok {
				return errors.New("the host's event stream ended")
			}
			if ev.Type == hub.EventResync {
				return errors.New("the host's event stream fell behind")
			}
			if err := hs.store(ctx, h, c, ev); err != nil {
				return err
			}
		}
	}
}

// store copies one event of h's (and, before its thread's first, the
// thread as the host has it now).
func (hs *Hosts) store(ctx context.Context, h *host, c *client.Client, ev hub.Event) error {
	w, ok, err := copyOf(h.name, ev)
	if err != nil {
		hs.log.Warn("a host's event is not copied", "host", h.name, "seq", ev.Seq, "err", err)
		return nil
	}
	if !ok {
		return nil
	}
	h.mu.Lock()
	known := h.known[ev.ThreadID]
	h.mu.Unlock()
	if !known && len(w.Threads) == 0 && len(w.DeleteThreads) == 0 {
		t, err := c.Remote().GetThread(ctx, linkCaller, ev.ThreadID)
		switch {
		case hub.ErrorCode(err) == hub.CodeNotFound:
			return nil // deleted there since: nothing to show
		case err != nil:
			return err
		}
		tc := threadCopy(h.name, t)
		w.Threads, w.SessionStates = append(tc.Threads, w.Threads...), append(tc.SessionStates, w.SessionStates...)
	}
	if err := hs.local.Mirror(w); err != nil {
		return err
	}
	h.mu.Lock()
	h.known[ev.ThreadID] = true
	h.mu.Unlock()
	return nil
}

// set records h's link and state, waking whoever waits on a change.
func (h *host) set(c *client.Client, state string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.c = c
	if h.state.State != state {
		h.state.State, h.state.Since = state, time.Now()
	}
	h.state.Error = ""
	if err != nil {
		h.state.Error = err.Error()
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

// unreachable reports whether err, from a call through a host's link, is
// the link failing rather than the host's hub answering (an answer
// unwraps to a *hub.Error).
func unreachable(err error) bool {
	var he *hub.Error
	return err != nil && !errors.As(err, &he)
}
