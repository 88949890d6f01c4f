package hostmirror

import (
	"context"
	"errors"
	"log/slog"
	"slices"
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
	// Mirror queues a Write of copies to be stored and published
	// (engine.Mirror) and returns a channel that receives its result once
	// it is committed and published. Writes queued one after another are
	// committed in that order.
	Mirror func(w *hub.Write) <-chan error
	// HostSeq is the host seq of the last copy of host's stored, and the
	// host log it was copied from (store.HostSeq).
	HostSeq func(ctx context.Context, host string) (seq int64, log string, err error)
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
	// startOver: the host's log started over (errHostReset); the next
	// stream starts at its beginning, not after the last host seq kept.
	startOver bool
	// log is the id of the host's event log the link follows (its
	// /healthz logId; "" from a host before ADR 0053), kept in each copy.
	log string
	// changed is closed (and replaced) at every state change: tests and
	// the window wait on it.
	changed chan struct{}
	// kick wakes a follower waiting out its backoff (Kick).
	kick chan struct{}
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
	h := &host{name: name, dial: dial, stop: cancel, changed: make(chan struct{}), kick: make(chan struct{}, 1),
		state: HostState{Name: name, State: StateConnecting, Since: time.Now()}}
	hs.mu.Lock()
	hs.hosts[name] = h
	hs.wg.Add(1)
	hs.mu.Unlock()
	go func() { defer hs.wg.Done(); hs.follow(ctx, h) }()
	return nil
}

// Kick says host name's link is up again: its follower, if it waits out
// its backoff, tries at once (a link back after a long cut would otherwise
// wait up to the backoff's cap before the catch-up starts). A host not
// added: nothing.
func (hs *Hosts) Kick(name string) {
	hs.mu.Lock()
	h := hs.hosts[name]
	hs.mu.Unlock()
	if h == nil {
		return
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
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
// up (the stream's client, or else one dialled now): NOT_FOUND for a host
// not added, HostUnreachable while down.
func (hs *Hosts) Remote(name string) (*client.Remote, error) {
	hs.mu.Lock()
	h := hs.hosts[name]
	hs.mu.Unlock()
	if h == nil {
		return nil, hub.Errorf(hub.CodeNotFound, "no host named %q", name)
	}
	h.mu.Lock()
	c := h.c
	h.mu.Unlock()
	if c != nil {
		return c.Remote(), nil
	}
	// The stream is down or between retries (its backoff): the link may
	// be up all the same (an ssh link connected since), so a call does
	// not wait for the copy to resume.
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	c, err := h.dial(ctx)
	if err != nil || c == nil {
		return nil, hub.HostUnreachable(name)
	}
	return c.Remote(), nil
}

// dialTimeout bounds the dial of a call made while a host's stream is down.
const dialTimeout = 10 * time.Second

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
		case <-h.kick:
			t.Stop()
		case <-t.C:
		}
	}
}

// followOnce opens h's link and its stream after the last host seq kept
// (from the start after errHostReset, or when the host's log is not the
// one the last copy came from), and copies it until either ends.
func (hs *Hosts) followOnce(ctx context.Context, h *host, b *client.Backoff) error {
	c, err := h.dial(ctx)
	if err != nil {
		return err
	}
	health, err := c.Health(ctx)
	if err != nil {
		return err
	}
	after, kept, err := hs.local.HostSeq(ctx, h.name)
	if err != nil {
		return err
	}
	h.mu.Lock()
	if h.startOver {
		after, h.startOver = 0, false
	}
	// Another log than the last copy's: the host's data dir was made anew.
	// Its seqs are not comparable with the point kept, even past it (ADR
	// 0053), so the new log is copied from its start.
	if after > 0 && kept != "" && health.LogID != "" && kept != health.LogID {
		hs.log.Warn("host's event log is a new one: copying it from its start", "host", h.name, "resumedAfter", after)
		after = 0
	}
	h.log = health.LogID
	h.mu.Unlock()
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
	p := &pipeline{hs: hs, h: h}
	// Whatever ends the stream, the copies queued are stored (or failed)
	// before the link resumes from the last one kept: else the next
	// stream would start before them and copy them twice.
	defer p.drain()
	for {
		var batch []hub.Event
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-p.oldest():
			if err := p.settle(err); err != nil {
				return err
			}
			continue
		case ev, ok := <-sub.Events():
			if !ok {
				return errors.New("the host's event stream ended")
			}
			batch = append(batch, ev)
		}
		// What has arrived meanwhile goes in the same Write: a link
		// catching up stores thousands of events a second.
		ended := false
	drain:
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-sub.Events():
				if !ok {
					ended = true
					break drain
				}
				batch = append(batch, ev)
			default:
				break drain
			}
		}
		// A seq at or before the point resumed from: the host's log started
		// over (its data dir was reset; its hub answers a resume point it
		// never reached with its log from the start, hub/eventbus). Nothing of the
		// new log is copied after the old one's point: the link starts
		// again from the new log's start (the old copies stay, as copies of
		// threads the host no longer has).
		if i := slices.IndexFunc(batch, func(ev hub.Event) bool {
			return ev.Seq > 0 && ev.Seq <= after && ev.Type != hub.EventResync
		}); i >= 0 {
			h.mu.Lock()
			h.startOver = true
			h.mu.Unlock()
			hs.log.Warn("host's event log started over: copying it again from its start", "host", h.name, "resumedAfter", after, "seq", batch[i].Seq)
			return errHostReset
		}
		if err := hs.store(ctx, h, c, p, batch); err != nil {
			return err
		}
		if ended {
			return errors.New("the host's event stream ended")
		}
	}
}

// errHostReset ends a host's stream whose seqs went backwards.
var errHostReset = errors.New("the host's event log started over (its data dir was reset)")

// maxBatch bounds the events of h's stream in one Write.
const maxBatch = 512

// store queues copies of events of h's, in order, in as few Writes as it
// can, a turn's consecutive text deltas joined (joinDeltas): the copies of
// consecutive events in one Write, but for a thread's
// deletion, a Write of its own. Before a thread's first event since the
// link came up its copy is made from the host's own answer. A resync
// ends the batch with an error (the link resumes from the last copy
// stored).
func (hs *Hosts) store(ctx context.Context, h *host, c *client.Client, p *pipeline, events []hub.Event) error {
	w := &hub.Write{}
	flush := func() error {
		if len(w.Events) == 0 {
			return nil
		}
		err := p.submit(w)
		w = &hub.Write{}
		return err
	}
	for _, j := range joinDeltas(events) {
		ev := j.Event
		if ev.Type == hub.EventResync {
			if err := flush(); err != nil {
				return err
			}
			return errors.New("the host's event stream fell behind")
		}
		cw, ok, err := copyOf(h.name, h.log, ev, j.from)
		if err != nil {
			hs.log.Warn("a host's event is not copied", "host", h.name, "seq", ev.Seq, "err", err)
			continue
		}
		if !ok {
			continue
		}
		if len(cw.DeleteThreads) > 0 {
			if err := flush(); err != nil {
				return err
			}
			if err := p.submit(cw); err != nil {
				return err
			}
			continue
		}
		h.mu.Lock()
		known := h.known[ev.ThreadID]
		// Known from here on: the Write that makes its copy is queued
		// before any later one (a Write that fails ends the stream, and
		// the next one starts with none known).
		h.known[ev.ThreadID] = true
		h.mu.Unlock()
		if !known && len(cw.Threads) == 0 {
			t, err := c.Remote().GetThread(ctx, linkCaller, ev.ThreadID)
			switch {
			case hub.ErrorCode(err) == hub.CodeNotFound:
				h.mu.Lock()
				delete(h.known, ev.ThreadID)
				h.mu.Unlock()
				continue // deleted there since: nothing to show
			case err != nil:
				if ferr := flush(); ferr != nil {
					return ferr
				}
				return err
			}
			merge(w, threadCopy(h.name, t))
		}
		merge(w, cw)
	}
	return flush()
}

// maxInFlight bounds the Writes of one host's copies queued in the store
// and not yet reported.
const maxInFlight = 8

// pipeline is one host's copies on their way into the local store: the
// follower reads and converts the next events while the store commits the
// last ones (ADR 0055). Its Writes share a chain, so their order holds
// through a failure: once one fails the store applies none of the later
// ones (hub.ErrChainBroken), and settle, once they are all back, stores
// the failed one as commit does (a refusal) or ends the stream (anything
// else), then queues the later ones again, in order. Used by the
// follower's goroutine only.
type pipeline struct {
	hs     *Hosts
	h      *host
	chain  hub.WriteChain
	queued []queuedWrite // oldest first
}

type queuedWrite struct {
	w      *hub.Write
	result <-chan error
}

// submit queues w, first waiting for the oldest queued Write to be
// reported when maxInFlight are queued.
func (p *pipeline) submit(w *hub.Write) error {
	if len(p.queued) == maxInFlight {
		if err := p.settle(<-p.queued[0].result); err != nil {
			return err
		}
	}
	w.Copies = true // the host stored them first (ADR 0055)
	w.Chain = &p.chain
	p.queued = append(p.queued, queuedWrite{w: w, result: p.hs.local.Mirror(w)})
	return nil
}

// oldest is the channel the oldest queued Write's result comes on; nil
// (never ready) when none is queued.
func (p *pipeline) oldest() <-chan error {
	if len(p.queued) == 0 {
		return nil
	}
	return p.queued[0].result
}

// settle takes err, the result the oldest queued Write reported. A
// failure waits for every later Write (none of them was applied); a
// refusal is then stored as commit stores it and the later Writes are
// queued again, in order; any other failure is returned (the stream ends,
// and the link resumes from the last copy stored).
func (p *pipeline) settle(err error) error {
	failed := p.queued[0].w
	p.queued = p.queued[1:]
	if err == nil {
		return nil
	}
	later := p.queued
	p.queued = nil
	var laterErr error
	for _, q := range later {
		if lerr := <-q.result; lerr != nil && !errors.Is(lerr, hub.ErrChainBroken) && laterErr == nil {
			laterErr = lerr
		}
	}
	p.chain.Reset() // none of its Writes is queued now
	if !refused(err) {
		return err
	}
	if laterErr != nil {
		return laterErr
	}
	failed.Chain = nil
	if err := p.hs.commit(p.h, failed); err != nil {
		return err
	}
	for _, q := range later {
		if err := p.submit(q.w); err != nil {
			return err
		}
	}
	return nil
}

// drain waits for every queued Write to be reported, settling each.
func (p *pipeline) drain() error {
	for len(p.queued) > 0 {
		if err := p.settle(<-p.queued[0].result); err != nil {
			for _, q := range p.queued {
				<-q.result
			}
			p.queued = nil
			return err
		}
	}
	return nil
}

// commit stores w, copies of h's, and waits for it. A Write the local hub
// refuses as such (a row it names is gone here: a copy deleted meanwhile)
// is stored again without its thread changes, then, refused again, left
// out with a warning: one bad event must not stop the link at the same
// place forever. Any other failure (the disk) is returned, and the link
// resumes later from the last copy stored.
func (hs *Hosts) commit(h *host, w *hub.Write) error {
	w.Copies = true
	err := <-hs.local.Mirror(w)
	if err == nil || !refused(err) {
		return err
	}
	if len(w.Events) > 1 { // which one: each alone
		for _, one := range split(w) {
			if err := hs.commit(h, one); err != nil {
				return err
			}
		}
		return nil
	}
	w.ThreadChanges = nil
	if err = <-hs.local.Mirror(w); err != nil && refused(err) {
		hs.log.Warn("a host's event is not copied", "host", h.name, "err", err)
		return nil
	}
	return err
}

// refused reports whether err is the local hub refusing a Write as such
// (not a failure to store it).
func refused(err error) bool {
	switch hub.ErrorCode(err) {
	case hub.CodeNotFound, hub.CodeInvalidArgument, hub.CodeConflict:
		return true
	}
	return false
}

// merge appends src's rows and events to dst's, in order.
func merge(dst, src *hub.Write) {
	dst.Threads = append(dst.Threads, src.Threads...)
	dst.SessionStates = append(dst.SessionStates, src.SessionStates...)
	dst.ThreadChanges = append(dst.ThreadChanges, src.ThreadChanges...)
	dst.Turns = append(dst.Turns, src.Turns...)
	dst.Permissions = append(dst.Permissions, src.Permissions...)
	dst.Elicitations = append(dst.Elicitations, src.Elicitations...)
	dst.Events = append(dst.Events, src.Events...)
}

// split is w as one Write per event, each with the rows of its thread and
// turn (a merged Write's rows cannot be told apart by event; the same rows
// again with each of its events are harmless: upserts, and status changes
// whose last one wins).
func split(w *hub.Write) []*hub.Write {
	out := make([]*hub.Write, 0, len(w.Events))
	for _, ev := range w.Events {
		one := &hub.Write{Events: []hub.Event{ev}}
		for _, t := range w.Threads {
			if t.ID == ev.ThreadID {
				one.Threads = append(one.Threads, t)
			}
		}
		for _, t := range w.Turns {
			if t.ID == ev.TurnID {
				one.Turns = append(one.Turns, t)
			}
		}
		for _, p := range w.Permissions {
			if p.TurnID == ev.TurnID && p.ThreadID == ev.ThreadID {
				one.Permissions = append(one.Permissions, p)
			}
		}
		for _, e := range w.Elicitations {
			if e.TurnID == ev.TurnID && e.ThreadID == ev.ThreadID {
				one.Elicitations = append(one.Elicitations, e)
			}
		}
		for _, c := range w.ThreadChanges {
			if c.ThreadID == ev.ThreadID {
				one.ThreadChanges = append(one.ThreadChanges, c)
			}
		}
		out = append(out, one)
	}
	return out
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
