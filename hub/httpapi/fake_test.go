package httpapi

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/eventbus"
)

// fake is a tiny working hub.Service in memory: threads in a map, turns
// that emit events, permissions, and an event log fanned out by the hub's
// own bus (hub/eventbus: catch-up and registration under one lock, a
// bounded buffer per subscriber, resync when it overflows).
//
// A turn's input drives it: "hold …" stays running until cancelled,
// "fail …" ends with an error event, anything else emits one
// message_delta per word and completes.
type fake struct {
	mu               sync.Mutex
	clock            time.Time
	seq              int
	threads          map[string]*hub.Thread
	threadOrder      []string // creation order
	turns            map[string]*hub.Turn
	turnOrder        []string
	running          map[string]string // thread id → running turn id
	perms            map[string]*hub.Permission
	lastSearch       hub.SearchQuery
	events           []hub.Event
	bus              *eventbus.Bus // reads the catch-up back from events (fake.Events)
	fail             error         // returned by the next call, then cleared
	limitReached     bool
	panicNext        bool // the next call panics: a stand-in for a bug
	lastCaller       hub.Caller
	clientReqs       map[string]*fakeClientRequest // by request id (clientrequests_test.go)
	lastCreate       hub.CreateThreadRequest
	lastHistoryQuery hub.HistoryQuery
	lastThreadQuery  hub.ThreadQuery    // fake_shelf_test.go
	lastArchive      hub.ArchiveRequest // fake_shelf_test.go
	// rules are the remembered rules (DecidePermission with Remember);
	// lastPermissionQuery the last QueryPermissions' query.
	rules               []hub.RememberedRule
	lastPermissionQuery hub.PermissionQuery
	// lastSessionList and imported (session id → thread id) serve
	// fake_sessions_test.go.
	lastSessionList fakeSessionCall
	imported        map[string]string
	elicits         map[string]*fakeElicitation // elicitations_test.go
}

var _ hub.Service = (*fake)(nil)

func newFake() *fake {
	f := &fake{
		clock:   time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC),
		threads: make(map[string]*hub.Thread),
		turns:   make(map[string]*hub.Turn),
		running: make(map[string]string),
		perms:   make(map[string]*hub.Permission),
	}
	f.setLiveBuffer(1 << 16)
	return f
}

// setLiveBuffer gives the fake a new bus whose subscribers may have n live
// events unread. Call it before anyone subscribes.
func (f *fake) setLiveBuffer(n int) {
	f.bus = eventbus.New(f, int64(len(f.events)), n)
}

// Events is the bus's catch-up: the log's events that filter selects.
func (f *fake) Events(_ context.Context, filter hub.EventFilter) ([]hub.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []hub.Event
	for _, e := range f.events {
		if e.Seq <= filter.After || filter.ThreadID != "" && e.ThreadID != filter.ThreadID || !filter.All && e.ClientID != filter.ClientID {
			continue
		}
		out = append(out, e)
		if len(out) == filter.Limit {
			break
		}
	}
	return out, nil
}

// failNext makes the next Service call return err.
func (f *fake) failNext(err error) {
	f.mu.Lock()
	f.fail = err
	f.mu.Unlock()
}

// enterLocked records the caller and takes an injected failure.
func (f *fake) enterLocked(c hub.Caller) error {
	f.lastCaller = c
	if f.panicNext {
		f.panicNext = false
		panic("fake: boom")
	}
	err := f.fail
	f.fail = nil
	return err
}

func (f *fake) caller() hub.Caller {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastCaller
}

func (f *fake) nowLocked() time.Time {
	f.clock = f.clock.Add(time.Second)
	return f.clock
}

func (f *fake) idLocked(prefix string) string {
	f.seq++
	return prefix + "_" + strconv.Itoa(f.seq)
}

func (f *fake) threadLocked(c hub.Caller, id string) (*hub.Thread, error) {
	t, ok := f.threads[id]
	if !ok || t.Deleted || (!c.All && t.ClientID != c.ClientID) {
		return nil, hub.Errorf(hub.CodeNotFound, "thread %s not found", id)
	}
	return t, nil
}

// emitLocked appends an event to the log and publishes it on the bus
// (which never blocks).
func (f *fake) emitLocked(typ string, t *hub.Thread, turnID string, payload any) hub.Event {
	e, err := hub.NewEvent(typ, *t, turnID, f.nowLocked(), payload)
	if err != nil {
		panic(err)
	}
	e.Seq = int64(len(f.events) + 1)
	f.events = append(f.events, e)
	f.bus.Publish([]hub.Event{e})
	return e
}

func (f *fake) ListAgents(ctx context.Context) ([]hub.Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(hub.Caller{}); err != nil {
		return nil, err
	}
	return []hub.Agent{
		{ID: "echo", Name: "Echo", Status: hub.AgentAvailable, Command: "echo-agent", Version: "1.0.0"},
		{ID: "gone", Name: "Gone", Status: hub.AgentUnavailable, Command: "gone-agent", Reason: "not installed"},
	}, nil
}

func (f *fake) CreateThread(ctx context.Context, c hub.Caller, req hub.CreateThreadRequest) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	f.lastCreate = req
	if req.Agent != "echo" {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", req.Agent)
	}
	if !filepath.IsAbs(req.Cwd) {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "cwd must be an absolute path")
	}
	now := f.nowLocked()
	t := &hub.Thread{ID: f.idLocked("th"), Agent: req.Agent, Cwd: req.Cwd, Title: req.Title, ClientID: c.ClientID, Status: hub.ThreadIdle, CreatedAt: now, UpdatedAt: now}
	if req.OpenSession {
		t.Modes = json.RawMessage(`{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"},{"id":"plan","name":"Plan"}]}`)
	}
	f.threads[t.ID] = t
	f.threadOrder = append(f.threadOrder, t.ID)
	return *t, nil
}

func (f *fake) ListThreads(ctx context.Context, c hub.Caller, limit int, cursor string) (hub.ThreadPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.ThreadPage{}, err
	}
	if limit == 0 {
		limit = 50
	}
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil {
			return hub.ThreadPage{}, hub.Errorf(hub.CodeInvalidArgument, "bad cursor")
		}
		start = n
	}
	var visible []hub.Thread
	for _, id := range slices.Backward(f.threadOrder) {
		if t, err := f.threadLocked(c, id); err == nil {
			visible = append(visible, *t)
		}
	}
	var p hub.ThreadPage
	if start < len(visible) {
		end := min(start+limit, len(visible))
		p.Threads = visible[start:end]
		if end < len(visible) {
			p.NextCursor = strconv.Itoa(end)
		}
	}
	return p, nil
}

func (f *fake) GetThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, id)
	if err != nil {
		return hub.Thread{}, err
	}
	return *t, nil
}

func (f *fake) RenameThread(ctx context.Context, c hub.Caller, id, title string) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, id)
	if err != nil {
		return hub.Thread{}, err
	}
	t.Title, t.UpdatedAt = title, f.nowLocked()
	f.emitLocked(hub.EventThreadUpdated, t, "", map[string]any{"thread": t})
	return *t, nil
}

func (f *fake) DeleteThread(ctx context.Context, c hub.Caller, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return err
	}
	t, err := f.threadLocked(c, id)
	if err != nil {
		return err
	}
	t.Deleted = true
	return nil
}

func (f *fake) CompactThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, id)
	if err != nil {
		return hub.Thread{}, err
	}
	if f.running[id] != "" {
		return hub.Thread{}, hub.Errorf(hub.CodeConflict, "a turn is running")
	}
	t.Summary, t.UpdatedAt = "summary", f.nowLocked()
	return *t, nil
}

func (f *fake) StartTurn(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.Turn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Turn{}, err
	}
	t, err := f.threadLocked(c, threadID)
	if err != nil {
		return hub.Turn{}, err
	}
	if in.Input == "" && len(in.Content) == 0 {
		return hub.Turn{}, hub.Errorf(hub.CodeInvalidArgument, "input or content is required")
	}
	if f.running[threadID] != "" {
		return hub.Turn{}, hub.Errorf(hub.CodeConflict, "a turn is already running on thread %s", threadID)
	}
	if f.limitReached {
		return hub.Turn{}, &hub.Error{Code: hub.CodeTooManyRequests, Message: "agent process limit reached", RetryAfter: 2500 * time.Millisecond}
	}
	tu := &hub.Turn{ID: f.idLocked("tu"), ThreadID: threadID, Status: hub.TurnRunning, Input: in.Input, StartedAt: f.nowLocked()}
	f.turns[tu.ID] = tu
	f.turnOrder = append(f.turnOrder, tu.ID)
	f.running[threadID] = tu.ID
	t.Status = hub.ThreadRunning
	f.emitLocked(hub.EventTurnStarted, t, tu.ID, map[string]any{"input": in.Input})
	if !strings.HasPrefix(in.Input, "hold") {
		go f.play(t.ID, tu.ID, in.Input)
	}
	return *tu, nil
}

// play runs a turn to its end, one event at a time.
func (f *fake) play(threadID, turnID, input string) {
	for _, w := range strings.Fields(input) {
		f.mu.Lock()
		f.emitLocked(hub.EventMessageDelta, f.threads[threadID], turnID, map[string]string{"text": w + " "})
		f.mu.Unlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.HasPrefix(input, "fail") {
		f.endLocked(turnID, hub.TurnFailed, "")
		f.emitLocked(hub.EventError, f.threads[threadID], turnID, map[string]string{"code": hub.CodeUpstreamUnavailable, "message": "agent exited"})
		return
	}
	f.endLocked(turnID, hub.TurnCompleted, "end_turn")
}

// endLocked ends a running turn and emits its turn_completed (except for
// failures, whose error event the caller emits).
func (f *fake) endLocked(turnID, status, stop string) *hub.Turn {
	tu := f.turns[turnID]
	now := f.nowLocked()
	tu.Status, tu.StopReason, tu.EndedAt = status, stop, &now
	t := f.threads[tu.ThreadID]
	delete(f.running, t.ID)
	t.Status = hub.ThreadIdle
	if status != hub.TurnFailed {
		f.emitLocked(hub.EventTurnCompleted, t, turnID, map[string]any{"turn": tu})
	}
	return tu
}

func (f *fake) CancelTurn(ctx context.Context, c hub.Caller, turnID string) (hub.Turn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Turn{}, err
	}
	tu, ok := f.turns[turnID]
	if !ok {
		return hub.Turn{}, hub.Errorf(hub.CodeNotFound, "turn %s not found", turnID)
	}
	if _, err := f.threadLocked(c, tu.ThreadID); err != nil {
		return hub.Turn{}, hub.Errorf(hub.CodeNotFound, "turn %s not found", turnID)
	}
	if tu.Ended() {
		return *tu, nil
	}
	return *f.endLocked(turnID, hub.TurnCancelled, "cancelled"), nil
}

func (f *fake) History(ctx context.Context, c hub.Caller, threadID string, includeEvents, includeInternal bool) ([]hub.TurnHistory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return nil, err
	}
	if _, err := f.threadLocked(c, threadID); err != nil {
		return nil, err
	}
	var out []hub.TurnHistory
	for _, id := range f.turnOrder {
		tu := f.turns[id]
		if tu.ThreadID != threadID {
			continue
		}
		h := hub.TurnHistory{Turn: *tu}
		if includeEvents {
			for _, e := range f.events {
				if e.TurnID == id {
					h.Events = append(h.Events, e)
				}
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// HistoryPage pages History: the cursor is the index of the page's first
// turn; lastHistoryQuery records the query.
func (f *fake) HistoryPage(ctx context.Context, c hub.Caller, threadID string, q hub.HistoryQuery) (hub.HistoryPage, error) {
	all, err := f.History(ctx, c, threadID, q.IncludeEvents, q.IncludeInternal)
	if err != nil {
		return hub.HistoryPage{}, err
	}
	f.mu.Lock()
	f.lastHistoryQuery = q
	f.mu.Unlock()
	start := 0
	if q.Cursor != "" {
		if start, err = strconv.Atoi(q.Cursor); err != nil || start < 0 || start > len(all) {
			return hub.HistoryPage{}, hub.Errorf(hub.CodeInvalidArgument, "invalid cursor")
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	end := min(start+limit, len(all))
	p := hub.HistoryPage{Turns: all[start:end]}
	if end < len(all) {
		p.NextCursor = strconv.Itoa(end)
	}
	return p, nil
}

// addPermission makes a pending permission on a thread's running turn.
func (f *fake) addPermission(threadID string) hub.Permission {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.threads[threadID]
	now := f.nowLocked()
	p := &hub.Permission{
		ID: f.idLocked("pe"), ThreadID: threadID, TurnID: f.running[threadID], Status: hub.PermissionPending,
		ToolCall: json.RawMessage(`{"toolCallId":"call_1","title":"rm -rf build","kind":"execute"}`),
		Options: []hub.PermissionOption{
			{OptionID: "allow", Name: "Allow once", Kind: "allow_once"},
			{OptionID: "reject", Name: "Reject", Kind: "reject_once"},
		},
		Deadline: now.Add(10 * time.Minute), CreatedAt: now,
	}
	f.perms[p.ID] = p
	f.emitLocked(hub.EventPermissionRequired, t, p.TurnID, map[string]any{"permission": p})
	return *p
}

// Search finds the visible threads whose title holds q.Q; "bad(" is a
// malformed query. The last query is kept in lastSearch.
func (f *fake) Search(ctx context.Context, c hub.Caller, q hub.SearchQuery) (hub.SearchPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.SearchPage{}, err
	}
	f.lastSearch = q
	if q.Q == "bad(" {
		return hub.SearchPage{}, hub.Errorf(hub.CodeInvalidArgument, "search: invalid query: fts5: syntax error near \"\"")
	}
	page := hub.SearchPage{}
	for _, t := range f.threads {
		if _, err := f.threadLocked(c, t.ID); err == nil && strings.Contains(t.Title, q.Q) {
			page.Hits = append(page.Hits, hub.SearchHit{ThreadID: t.ID, Kind: hub.SearchKindTitle, ThreadTitle: t.Title,
				Snippet: []hub.SnippetPart{{Text: t.Title, Match: true}}})
		}
	}
	return page, nil
}

func (f *fake) ListPermissions(ctx context.Context, c hub.Caller, status string) ([]hub.Permission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return nil, err
	}
	var out []hub.Permission
	for _, p := range f.perms {
		if _, err := f.threadLocked(c, p.ThreadID); err == nil && (status == "" || p.Status == status) {
			out = append(out, *p)
		}
	}
	slices.SortFunc(out, func(a, b hub.Permission) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

func (f *fake) DecidePermission(ctx context.Context, c hub.Caller, id string, d hub.Decision) (hub.DecisionResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.DecisionResult{}, err
	}
	p, ok := f.perms[id]
	if !ok {
		return hub.DecisionResult{}, hub.Errorf(hub.CodeNotFound, "permission %s not found", id)
	}
	t, err := f.threadLocked(c, p.ThreadID)
	if err != nil {
		return hub.DecisionResult{}, hub.Errorf(hub.CodeNotFound, "permission %s not found", id)
	}
	if p.Status != hub.PermissionPending {
		return hub.DecisionResult{}, hub.Errorf(hub.CodeConflict, "permission %s is already %s", id, p.Status)
	}
	switch {
	case d.Outcome == hub.PermissionApproved:
		p.Status, p.OptionID = hub.PermissionApproved, "allow"
	case d.Outcome == hub.PermissionDeclined:
		p.Status, p.OptionID = hub.PermissionDeclined, "reject"
	case d.OptionID == "allow" || d.OptionID == "reject":
		p.Status, p.OptionID = map[string]string{"allow": hub.PermissionApproved, "reject": hub.PermissionDeclined}[d.OptionID], d.OptionID
	default:
		return hub.DecisionResult{}, hub.Errorf(hub.CodeInvalidArgument, "no option %q", d.OptionID)
	}
	p.DecidedBy = hub.DecidedByOf(c)
	now := f.nowLocked()
	p.DecidedAt = &now
	f.emitLocked(hub.EventPermissionResolved, t, p.TurnID, map[string]any{"permission": p})
	res := hub.DecisionResult{Permission: *p}
	if d.Remember != "" {
		decision := hub.RuleDeny
		if p.Status == hub.PermissionApproved {
			decision = hub.RuleAllow
		}
		r := hub.RememberedRule{ID: f.idLocked("ru"), Scope: d.Remember, ThreadID: p.ThreadID, Decision: decision,
			CreatedBy: p.DecidedBy, PermissionID: p.ID, CreatedAt: now}
		f.rules = append(f.rules, r)
		res.Rule = &r
	}
	return res, nil
}

// QueryPermissions records q and lists the permissions of its status and
// thread, newest first; cursor "bad" is INVALID_ARGUMENT.
func (f *fake) QueryPermissions(ctx context.Context, c hub.Caller, q hub.PermissionQuery) (hub.PermissionPage, error) {
	f.mu.Lock()
	f.lastPermissionQuery = q
	f.mu.Unlock()
	if q.Cursor == "bad" {
		return hub.PermissionPage{}, hub.Errorf(hub.CodeInvalidArgument, "invalid cursor")
	}
	ps, err := f.ListPermissions(ctx, c, q.Status)
	if err != nil {
		return hub.PermissionPage{}, err
	}
	ps = slices.DeleteFunc(ps, func(p hub.Permission) bool { return q.ThreadID != "" && p.ThreadID != q.ThreadID })
	slices.Reverse(ps)
	return hub.PermissionPage{Permissions: ps}, nil
}

func (f *fake) DecidePermissions(ctx context.Context, c hub.Caller, b hub.BatchDecision) (hub.BatchResult, error) {
	var res hub.BatchResult
	for _, id := range b.IDs {
		r, err := f.DecidePermission(ctx, c, id, hub.Decision{Outcome: b.Outcome, Remember: b.Remember})
		if err != nil {
			res.Results = append(res.Results, hub.BatchItem{ID: id, Error: &hub.ItemError{Code: hub.ErrorCode(err), Message: hub.ErrorMessage(err)}})
			continue
		}
		res.Results = append(res.Results, hub.BatchItem{ID: id, Permission: &r.Permission})
	}
	return res, nil
}

func (f *fake) ListRules(ctx context.Context, c hub.Caller) ([]hub.RememberedRule, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return nil, err
	}
	return slices.Clone(f.rules), nil
}

func (f *fake) DeleteRule(ctx context.Context, c hub.Caller, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return err
	}
	i := slices.IndexFunc(f.rules, func(r hub.RememberedRule) bool { return r.ID == id })
	if i < 0 {
		return hub.Errorf(hub.CodeNotFound, "rule %s not found", id)
	}
	f.rules = slices.Delete(f.rules, i, i+1)
	return nil
}

// Subscribe is the bus's subscription, after the fake's checks.
func (f *fake) Subscribe(ctx context.Context, c hub.Caller, threadID string, after int64) (*hub.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return nil, err
	}
	if threadID != "" {
		if _, err := f.threadLocked(c, threadID); err != nil {
			return nil, err
		}
	}
	return f.bus.Subscribe(hub.EventFilter{After: after, ThreadID: threadID, ClientID: c.ClientID, All: c.All}), nil
}

// forceResync cuts every subscriber off as if it had fallen behind.
func (f *fake) forceResync() { f.bus.ResyncAll() }

// openStreams counts the registered subscribers.
func (f *fake) openStreams() int { return f.bus.Subscribers() }

// OpenSession gives the thread the modes "default" and "plan".
func (f *fake) OpenSession(ctx context.Context, c hub.Caller, threadID string) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, threadID)
	if err != nil {
		return hub.Thread{}, err
	}
	if t.Modes == nil {
		t.Modes, _ = json.Marshal(map[string]any{"currentModeId": "default", "availableModes": []map[string]string{
			{"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan"}}})
		f.emitLocked(hub.EventModeChanged, t, "", map[string]any{"modeId": "default"})
	}
	return *t, nil
}

// SetMode knows the modes "default" and "plan".
func (f *fake) SetMode(ctx context.Context, c hub.Caller, threadID, modeID string) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, threadID)
	if err != nil {
		return hub.Thread{}, err
	}
	if modeID != "default" && modeID != "plan" {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "the agent refused session/set_mode: unknown mode %q", modeID)
	}
	t.Modes, _ = json.Marshal(map[string]any{"currentModeId": modeID, "availableModes": []map[string]string{
		{"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan"}}})
	f.emitLocked(hub.EventModeChanged, t, f.running[threadID], map[string]any{"modeId": modeID})
	return *t, nil
}

// SetConfigOption knows the option "model" with values "small" and "large".
func (f *fake) SetConfigOption(ctx context.Context, c hub.Caller, threadID, configID, value string) (hub.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enterLocked(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := f.threadLocked(c, threadID)
	if err != nil {
		return hub.Thread{}, err
	}
	if configID != "model" || value != "small" && value != "large" {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "the agent refused session/set_config_option")
	}
	t.ConfigOptions, _ = json.Marshal([]map[string]any{{"id": "model", "name": "Model", "type": "select", "currentValue": value,
		"options": []map[string]string{{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}}}})
	f.emitLocked(hub.EventConfigOptions, t, f.running[threadID], map[string]any{"configOptions": t.ConfigOptions})
	return *t, nil
}
