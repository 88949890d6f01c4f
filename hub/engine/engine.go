package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/eventbus"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// Config is the engine's live-tunable configuration (config file keys in
// parentheses). SetConfig swaps it atomically; running turns keep the
// values they started with where noted.
type Config struct {
	PermissionTimeout time.Duration // permissions.timeout (10m)
	MaxAgentProcesses int           // limits.maxAgentProcesses (8)
	AgentIdleTimeout  time.Duration // limits.agentIdleTimeout (30m)
	TurnTimeout       time.Duration // limits.turnTimeout (30m): cancel, then kill
	// TurnIdleTimeout (limits.turnIdleTimeout, 5m; 0: off): a turn with
	// no session/update and no agent request for this long is cancelled,
	// then killed; the clock pauses while a permission or client request
	// of the turn is pending or a terminal the agent started runs
	// (watchdog.go). TurnTimeout stays the outer bound.
	TurnIdleTimeout time.Duration
	// ContextCompactAt (context.compactAt, 0: off) compacts a thread once
	// its agent reports (usage_update) this fraction of its context
	// window used, after the turn that crossed it (compact.go).
	ContextCompactAt   float64
	ContextRecentTurns int // context.recentTurns (10)
	ContextMaxChars    int // context.maxChars (20000)
	// Folders are the config's per-folder rules (folders.<glob>), in any
	// order: the most specific matching rule wins (folders.go).
	Folders []FolderRule
	// TerminalInheritEnv names the hub's environment variables terminal
	// commands inherit besides the default list (terminals.inheritEnv;
	// acp.TerminalGrant.InheritEnv).
	TerminalInheritEnv []string
	// Redaction replaces well-known secret formats (hub/redact) in what
	// is stored and streamed: turn input and output, tool calls, terminal
	// output, thread titles (redaction.enabled, true). Applies at once.
	Redaction bool
	// AgentRequests bounds the agent→hub requests (fs/*, terminal/*) served
	// at once per agent process; more wait (limits.agentRequests, 4).
	// Applies to agent processes started from then on.
	AgentRequests int
	// PendingPermissionsPerTurn bounds a turn's pending permissions; the
	// next one is refused at once (limits.pendingPermissionsPerTurn, 32).
	PendingPermissionsPerTurn int
	// Budgets are the spending limits (budgets; budgets.go): live, a
	// turn is admitted against the limits in effect when it starts.
	Budgets hub.Budgets
	// Rules are the compiled permissions.rules, tried before anyone is
	// asked (nil: none). Applies to requests from then on.
	Rules *policy.Policy
	// MCPServers are the config's top-level MCP servers (mcpServers),
	// given to every agent's sessions opened from then on (mcp.go).
	MCPServers acp.MCPServers
	// EscalateAfter is permissions.escalateAfter: a permission still
	// pending this long is escalated (0: never; at least PermissionTimeout
	// also never). Applies to requests from then on.
	EscalateAfter time.Duration
	// WorktreeLocation is the folder new worktrees go in, as
	// <location>/<branch> ("": <repo>-worktrees beside the repository;
	// worktrees.location). Issue 19.
	WorktreeLocation string
}

// DefaultPendingPermissionsPerTurn is the default
// Config.PendingPermissionsPerTurn.
const DefaultPendingPermissionsPerTurn = 32

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		PermissionTimeout:  10 * time.Minute,
		MaxAgentProcesses:  8,
		AgentIdleTimeout:   30 * time.Minute,
		TurnTimeout:        30 * time.Minute,
		TurnIdleTimeout:    5 * time.Minute,
		ContextRecentTurns: 10,
		ContextMaxChars:    20000,
		Redaction:          true,

		AgentRequests:             acp.DefaultMaxAgentRequests,
		PendingPermissionsPerTurn: DefaultPendingPermissionsPerTurn,
	}
}

// Options wire an Engine.
type Options struct {
	Store  hub.Store
	Logger *slog.Logger
	Config Config
	// Agents is the agent catalogue (built-in merged with config).
	Agents []acp.AgentSpec
	// AgentOptions tune every agent process (grace periods, line cap).
	AgentOptions acp.AgentOptions
	// CancelWait bounds how long a cancel waits for the agent's own stop
	// before its process group is killed (default 4s, so a cancelled turn
	// ends within 5s).
	CancelWait time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// AfterFunc starts the engine's timers (turn watchdogs, permission
	// escalation and expiry, elicitation expiry, idle agents; clock.go) on
	// the clock Now reads (default time.AfterFunc; tests pass a fake
	// clock's).
	AfterFunc func(d time.Duration, f func()) Timer
	// ClientRequestTimeout bounds the wait for a client request's answer
	// (default hub.ClientRequestTimeout).
	ClientRequestTimeout time.Duration
	// SearchTimeout bounds one Search (default hub.SearchTimeout).
	SearchTimeout time.Duration
	// Protected are paths (files or folders) an agent is never served,
	// whatever anyone approves: the data dir, the token, hub.json, the
	// database and its -wal/-shm, the config file and its folder. They
	// are resolved once, at New.
	Protected []string
	// MaxHistoryBytes bounds the JSON of one history answer (default
	// hub.MaxHistoryBytes; tests lower it).
	MaxHistoryBytes int
	// ProbeAgents, when set, starts every available agent once in the
	// background after New returns (initialize only, two at a time, each
	// bounded by 15s), so ListAgents reports versions and capabilities
	// before any thread has run them.
	ProbeAgents bool
}

// Engine implements Service: threads, turns, permissions and the agent
// processes behind them. It is safe for concurrent use.
//
// Lock order: threadRT.startMu, Engine.mu, then threadRT.mu. Only
// evictLocked holds two threadRT.mu at once (its own thread's, then each
// other's in turn), always under Engine.mu, and it only tries other
// threads' startMu (TryLock). A turn's watchdog mutex is a leaf. Engine.mu and
// threadRT.mu are never held across a Store call that waits for a commit,
// nor across a call into an agent; threadRT.startMu is, while it
// serialises starting a thread's agent and opening its session
// (ensureSession).
type Engine struct {
	store      hub.Store
	ledger     hub.UsageStore // the store's usage ledger (hub.Store includes it)
	log        *slog.Logger
	bus        *eventbus.Bus
	now        func() time.Time
	afterFunc  func(time.Duration, func()) Timer
	agentOpts  acp.AgentOptions
	cancelWait time.Duration
	// clientTimeout is Options.ClientRequestTimeout; creqs the client
	// requests (clientreq.go).
	clientTimeout time.Duration
	creqs         clientRequests
	searchTimeout time.Duration // Options.SearchTimeout
	// protected is Options.Protected, resolved (confine.go); hubCalls
	// numbers the hub's own tool calls (hub_fs_<n>, hub_terminal_<n>).
	protected []string
	hubCalls  atomic.Int64

	// redacting is cfg.Redaction, readable without mu on the streaming
	// path.
	redacting atomic.Bool
	// compactAtBits is cfg.ContextCompactAt (math.Float64bits), readable
	// without mu on the streaming path.
	compactAtBits atomic.Uint64
	maxHistory    int // Options.MaxHistoryBytes
	// closed is closed when Close begins (closeOnce): what retries a
	// write until it is stored (diskfull.go) gives up. Not guarded by mu.
	closed    chan struct{}
	closeOnce sync.Once
	// diskFull is set while writes fail because the data dir's disk is
	// full (diskfull.go); atomic.
	diskFull atomic.Bool
	// standing caches worktree threads' ahead/behind/dirty/merged
	// (land.go); its own lock.
	standing standings
	// setups are the running worktree setups (setup.go); their own lock.
	setups setups
	// staleSetups are the threads whose setup a previous run left
	// "running", their end stored (endStaleSetup): thread id → true.
	staleSetups sync.Map

	mu      sync.Mutex
	cfg     Config
	agents  map[string]acp.AgentSpec
	threads map[string]*threadRT // loaded threads by id
	turns   map[string]*turnRT   // running turns by id
	perms   map[string]*permRT   // pending permissions by id
	elicits map[string]*elicitRT // pending elicitations by id (elicitations.go)
	// remembered are the remembered rules, oldest first, as stored.
	remembered []hub.RememberedRule
	procs      int // process slots taken: live agent processes, and those reserved for one about to start
	// slotless are evicted agents still exiting whose slot went to
	// another thread's agent: watchAgent does not free it again.
	slotless map[*acp.Agent]bool
	// lister is the session lister kept between pages (lister.go).
	lister  *keptLister
	closing bool
	turnsWG sync.WaitGroup
	// snapsWG counts the snapshot jobs queued on threads' lanes
	// (snapshots.go); Close waits for them.
	snapsWG sync.WaitGroup
	// checkpointGate, when set (tests only), runs at the start of every
	// checkpoint job with the thread's id: a test holds a checkpoint with
	// it.
	checkpointGate func(threadID string)
	// overlaps are the live threads' overlaps (overlaps.go); its own lock.
	overlaps overlapState
	inits    map[string]agentInit // agents' initialize answers, by agent id
	budgets  budgetState          // budgets.go; its own locks
	mcp      threadMCP            // threads' own MCP servers (mcp.go)
	authed   map[string]string    // agent id → agent sign-in method used (auth.go)
	imports  importLocks          // imports of agent sessions under way (agentsessions.go); its own lock
	queues   queues               // threads' queued prompts and reset timers (queue.go); its own lock

	stopProbes context.CancelFunc
	probes     sync.WaitGroup
	// probeCtx is set once probes are on (probe.go); probeErrs are why
	// agents' last probes failed, by agent id (both guarded by mu).
	probeCtx  context.Context
	probeErrs map[string]hub.AgentProbeError
	// probeRuns are the background probes running, by agent id: closed
	// when each ends; launches counts the processes being started, by
	// agent id (both guarded by mu; startingAgent).
	probeRuns map[string]chan struct{}
	launches  map[string]int
}

var _ hub.Service = (*Engine)(nil)

// New starts an engine over a store: it first recovers what a previous run
// left (running turns become interrupted, pending permissions expire, agent
// processes it recorded are killed), then accepts calls.
func New(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Store == nil {
		return nil, errors.New("hub: no store")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AfterFunc == nil {
		opts.AfterFunc = wallAfterFunc
	}
	if opts.CancelWait <= 0 {
		opts.CancelWait = 4 * time.Second
	}
	if opts.ClientRequestTimeout <= 0 {
		opts.ClientRequestTimeout = hub.ClientRequestTimeout
	}
	if reflect.DeepEqual(opts.Config, Config{}) {
		opts.Config = DefaultConfig()
	}
	last, err := opts.Store.LastSeq(ctx)
	if err != nil {
		return nil, fmt.Errorf("hub: read event log: %w", err)
	}
	e := &Engine{
		store:      opts.Store,
		ledger:     opts.Store,
		log:        opts.Logger,
		bus:        eventbus.New(opts.Store, last, 0),
		closed:     make(chan struct{}),
		now:        opts.Now,
		afterFunc:  opts.AfterFunc,
		slotless:   make(map[*acp.Agent]bool),
		agentOpts:  opts.AgentOptions,
		cancelWait: opts.CancelWait,
		cfg:        opts.Config,
		threads:    make(map[string]*threadRT),
		turns:      make(map[string]*turnRT),
		perms:      make(map[string]*permRT),
		elicits:    make(map[string]*elicitRT),
		inits:      make(map[string]agentInit),
		probeRuns:  make(map[string]chan struct{}),
		launches:   make(map[string]int),
		stopProbes: func() {},
		protected:  protectedRoots(opts.Protected),
	}
	e.redacting.Store(opts.Config.Redaction)
	e.compactAtBits.Store(math.Float64bits(opts.Config.ContextCompactAt))
	e.agentOpts.Client.CancelWait = opts.CancelWait
	e.clientTimeout = opts.ClientRequestTimeout
	e.searchTimeout = cmp.Or(opts.SearchTimeout, hub.SearchTimeout)
	e.maxHistory = opts.MaxHistoryBytes
	if e.maxHistory <= 0 {
		e.maxHistory = hub.MaxHistoryBytes
	}
	e.SetAgents(opts.Agents)
	if e.remembered, err = opts.Store.ListRules(ctx); err != nil {
		return nil, fmt.Errorf("hub: read remembered rules: %w", err)
	}
	if err := e.recover(ctx); err != nil {
		return nil, err
	}
	e.recheckOverlaps(ctx)                      // overlaps.go: kept in memory only
	if err := e.resumeQueues(ctx); err != nil { // queue.go
		return nil, err
	}
	if opts.ProbeAgents {
		e.startProbes()
	}
	return e, nil
}

// SetConfig applies a new configuration. The permission timeout applies to
// permissions asked from now on; limits to processes started from now on;
// redaction to what is stored from now on (a message's held-back tail is
// released redacted).
func (e *Engine) SetConfig(c Config) {
	e.mu.Lock()
	e.cfg = c
	e.redacting.Store(c.Redaction)
	e.compactAtBits.Store(math.Float64bits(c.ContextCompactAt))
	e.mu.Unlock()
}

// Config returns the configuration in effect.
func (e *Engine) Config() Config { return e.config() }

// compactAt is cfg.ContextCompactAt, without e.mu.
func (e *Engine) compactAt() float64 { return math.Float64frombits(e.compactAtBits.Load()) }

func (e *Engine) config() Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// Close shuts the engine down gracefully: no new turns; running turns are
// cancelled (bounded by ctx); pending permissions end cancelled, never
// approved; agent processes are stopped. The store is the caller's to close
// afterwards.
func (e *Engine) Close(ctx context.Context) error {
	e.stopProbes()
	e.mu.Lock()
	e.closing = true
	e.closeOnce.Do(func() { close(e.closed) })
	var running []*turnRT
	for _, t := range e.turns {
		running = append(running, t)
	}
	var threads []*threadRT
	for _, rt := range e.threads {
		threads = append(threads, rt)
	}
	e.mu.Unlock()
	e.stopListerOnClose() // lister.go
	for _, t := range running {
		go e.cancelTurn(t, "hub shutting down")
	}
	e.cancelSetups(ctx) // setup.go
	done := make(chan struct{})
	go func() { e.turnsWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	var wg sync.WaitGroup
	for _, rt := range threads {
		wg.Add(1)
		go func() { defer wg.Done(); e.stopAgent(ctx, rt) }()
	}
	wg.Wait()
	snaps := make(chan struct{})
	go func() { e.snapsWG.Wait(); close(snaps) }()
	select { // the snapshots of the turns that ended: snapshots.go
	case <-snaps:
	case <-ctx.Done():
	}
	e.probes.Wait()
	return nil
}

// submit queues w and returns a channel that receives its result once it
// is committed and its events are published. Events are handed to the
// bus's publisher in commit order (on the store's writer goroutine), so
// subscribers see Seq strictly increasing; writes submitted one after
// another commit in that order.
func (e *Engine) submit(w *hub.Write) <-chan error {
	done := make(chan error, 1)
	e.redactWrite(w)
	e.announcedOverlaps(w) // overlaps.go
	e.store.CommitAsync(w, func(w *hub.Write, err error) {
		e.noteStorage(err)
		if err != nil {
			done <- err
			return
		}
		e.bus.Enqueue(w.Events, func() { done <- nil })
	})
	return done
}

// commit writes w durably and returns once it is committed and published.
// It never gives up early, whatever the caller's context: an abandoned
// write could still commit and leave stored state (a pending permission, a
// running turn) that the engine no longer tracks. The store's writer
// always finishes or fails a write.
func (e *Engine) commit(w *hub.Write) error {
	return <-e.submit(w)
}

// commitAsync queues w; its events are published once committed. Used on
// the streaming path, where the agent's updates must not wait for fsync.
func (e *Engine) commitAsync(w *hub.Write) {
	e.redactWrite(w)
	e.announcedOverlaps(w) // overlaps.go
	e.store.CommitAsync(w, func(w *hub.Write, err error) {
		e.noteStorage(err)
		if err != nil {
			e.log.Error("hub: storing events failed", "err", err, "events", len(w.Events))
			return
		}
		e.bus.Enqueue(w.Events, nil)
	})
}

// Announce stores and publishes a hub-wide event: one tied to no thread
// (config_error). Like every event it is committed before anyone sees it;
// only callers with scope=all (the window, the tray) see it.
func (e *Engine) Announce(typ string, payload any) error {
	p, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("hub: %s payload: %w", typ, err)
	}
	return e.commit(&hub.Write{Events: []hub.Event{{Type: typ, At: e.now(), Payload: p}}})
}
