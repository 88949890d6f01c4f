//go:build unix

package app

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// recorder is a fake Emitter: it keeps what the window would have received.
type recorder struct {
	mu     sync.Mutex
	events []emitted
	added  chan struct{} // signalled (non-blocking) on each Emit
}

type emitted struct {
	name string
	data json.RawMessage
}

func newRecorder() *recorder { return &recorder{added: make(chan struct{}, 1)} }

func (r *recorder) Emit(name string, data any) {
	raw, ok := data.(json.RawMessage)
	if !ok {
		raw, _ = json.Marshal(data)
	}
	r.mu.Lock()
	r.events = append(r.events, emitted{name, raw})
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *recorder) snapshot() []emitted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor waits until some emitted event satisfies ok and returns it.
func (r *recorder) waitFor(t *testing.T, what string, ok func(emitted, hub.Event) bool) hub.Event {
	t.Helper()
	return r.waitSince(t, 0, what, ok)
}

// waitSince is waitFor among the events emitted after the first n.
func (r *recorder) waitSince(t *testing.T, n int, what string, ok func(emitted, hub.Event) bool) hub.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		for _, e := range r.snapshot()[n:] {
			var ev hub.Event
			if e.name == EventHubEvent || e.name == EventHubResync {
				if err := json.Unmarshal(e.data, &ev); err != nil {
					t.Fatalf("%s data is not an event: %v: %s", e.name, err, e.data)
				}
			}
			if ok(e, ev) {
				return ev
			}
		}
		select {
		case <-r.added:
		case <-deadline:
			t.Fatalf("no %s within 10 s; got %d events", what, len(r.snapshot()))
		}
	}
}

// bindingsHub runs the hub in this process (startHub, with the fake agent
// as "fake") and returns the window's bindings over its engine.
func bindingsHub(t *testing.T) (*Bindings, *recorder, *runningHub, string) {
	t.Helper()
	dir := t.TempDir()
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: io.Discard}},
		Options{DataDir: filepath.Join(dir, "data"), Config: benchConfig(t, dir), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	b := NewBindings(context.Background(), h.engine.Services(), rec, nil)
	t.Cleanup(func() {
		b.stop()
		h.stop(context.Background())
	})
	return b, rec, h, dir
}

// bindingsContract is the binding contract of the Bindings doc comment:
// method name and Go signature. The frontend is written against it.
var bindingsContract = map[string]string{
	"ListAgents":         "func() ([]hub.Agent, error)",
	"CreateThread":       "func(hub.CreateThreadRequest) (hub.Thread, error)",
	"ListThreads":        "func(int, string) (hub.ThreadPage, error)",
	"GetThread":          "func(string) (hub.Thread, error)",
	"RenameThread":       "func(string, string) (hub.Thread, error)",
	"DeleteThread":       "func(string) error",
	"CompactThread":      "func(string) (hub.Thread, error)",
	"StartTurn":          "func(string, hub.TurnInput) (hub.Turn, error)",
	"CancelTurn":         "func(string) (hub.Turn, error)",
	"History":            "func(string, bool, bool) ([]hub.TurnHistory, error)",
	"HistoryPage":        "func(string, hub.HistoryQuery) (hub.HistoryPage, error)",
	"OpenSession":        "func(string) (hub.Thread, error)",
	"SetMode":            "func(string, string) (hub.Thread, error)",
	"SetConfigOption":    "func(string, string, string) (hub.Thread, error)",
	"ListPermissions":    "func(string) ([]hub.Permission, error)",
	"QueryPermissions":   "func(hub.PermissionQuery) (hub.PermissionPage, error)",
	"Search":             "func(hub.SearchQuery) (hub.SearchPage, error)",
	"DecidePermission":   "func(string, hub.Decision) (hub.DecisionResult, error)",
	"DecidePermissions":  "func(hub.BatchDecision) (hub.BatchResult, error)",
	"QueryElicitations":  "func(hub.ElicitationQuery) (hub.ElicitationPage, error)",
	"AnswerElicitation":  "func(string, hub.ElicitationAnswer) (hub.Elicitation, error)",
	"OpenElicitationURL": "func(string) error",
	"ListRules":          "func() ([]hub.RememberedRule, error)",
	"DeleteRule":         "func(string) error",
	"Subscribe":          "func(int64) error",
	// hub.SettingsService, the config file's.
	"GetSettings":    "func() (hub.Settings, error)",
	"UpdateSettings": "func(hub.SettingsPatch) (hub.Settings, error)",
	// The window's own, not a hub.Service operation.
	"ChooseFolder": "func(string) (string, error)",
	// hub.WorkService (issue 19; bindings_work.go).
	"DeleteThreadWith":  "func(string, hub.DeleteOptions) error",
	"MergeThread":       "func(string) (hub.MergeResult, error)",
	"GitFolder":         "func(string) (hub.GitFolder, error)",
	"ListAgentSessions": "func(string, string, string) (hub.AgentSessionPage, error)",
	"ImportSession":     "func(hub.ImportSessionRequest) (hub.ImportSessionResult, error)",
	"DiscardThread":     "func(string) (hub.Thread, error)",
	"Changes":           "func(string, hub.ChangesQuery) (hub.Changes, error)",
	"RevertChanges":     "func(string, hub.RevertRequest) (hub.RestoreResult, error)",
	"ListCheckpoints":   "func(string) ([]hub.Checkpoint, error)",
	"RestoreCheckpoint": "func(string, string) (hub.RestoreResult, error)",
	// Landing the work (issue 31; bindings_work.go); OpenPullRequest is the window's own.
	"CommitSuggestion": "func(string) (hub.CommitSuggestion, error)",
	"CommitThread":     "func(string, hub.CommitRequest) (hub.CommitResult, error)",
	"PushThread":       "func(string) (hub.PushResult, error)",
	"OpenPullRequest":  "func(string) error",
	"CancelSetup":      "func(string) (hub.Thread, error)",
	// A host's folders and agents (issue 30; bindings_hosts.go).
	"HostFolders": "func(string, string) (hub.FolderList, error)",
	"HostAgents":  "func(string) ([]hub.Agent, error)",
	// A host's settings, rules and usage (issue 30, ADR 0048; bindings_hosts.go).
	"HostSettings":       "func(string) (hub.Settings, error)",
	"UpdateHostSettings": "func(string, hub.SettingsPatch) (hub.Settings, error)",
	"HostRules":          "func(string) ([]hub.RememberedRule, error)",
	"DeleteHostRule":     "func(string, string) error",
	"HostUsage":          "func(string, hub.UsageParams) (hub.UsageReport, error)",
	"OverrideHostBudget": "func(string, hub.OverrideRequest) (hub.BudgetOverride, error)",
	// hub.UsageService (bindings_usage.go), window-only here.
	"GetUsage":       "func(hub.UsageParams) (hub.UsageReport, error)",
	"OverrideBudget": "func(hub.OverrideRequest) (hub.BudgetOverride, error)",
	// hub.Shelf (bindings_shelf.go); Export/Import as strings, and the
	// window's own "Open in browser".
	"QueryThreads":   "func(hub.ThreadQuery) (hub.ThreadPage, error)",
	"SetArchived":    "func(string, bool) (hub.Thread, error)",
	"ArchiveThreads": "func(hub.ArchiveRequest) (hub.ArchiveResult, error)",
	"ExportText":     "func(hub.ExportRequest) (string, error)",
	"ImportText":     "func(string, string) (hub.ImportResult, error)",
	"OpenInBrowser":  "func(string) error",
	"SaveExport":     "func(hub.ExportRequest, string) (string, error)",
	// hub.AgentInstaller, the app's.
	"InstallAgent": "func(string, string) error",
	"RemoveAgent":  "func(string) error",
	"InstallNode":  "func() error",
	"NodeStatus":   "func() (hub.NodeStatus, error)",
	// hub.AgentAuth, the app's.
	"SignInAgent":  "func(string, string) (hub.SignInResult, error)",
	"WatchAuth":    "func(string) error",
	"AuthInput":    "func(string, string) error",
	"AuthResize":   "func(string, int, int) error",
	"CloseAuth":    "func(string) error",
	"SignOutAgent": "func(string) error",
	// hub.QueueService (issue 33), bound through the embedded hub.QueueCalls.
	"Enqueue":      "func(string, hub.TurnInput) (hub.QueuedPrompt, error)",
	"Queue":        "func(string) ([]hub.QueuedPrompt, error)",
	"EditQueued":   "func(string, string, hub.QueueEdit) (hub.QueuedPrompt, error)",
	"RemoveQueued": "func(string, string) error",
	"SendNext":     "func(string) (hub.Turn, error)",
	"MoveQueue":    "func(string, hub.QueueMoveRequest) (hub.Thread, error)",
	// hub.HostService (Services.Hosts), the app's.
	"ListHosts":   "func() ([]hub.Host, error)",
	"AddHost":     "func(string, string) (hub.Host, error)",
	"RemoveHost":  "func(string) error",
	"ConnectHost": "func(string, hub.HostConnect) (hub.Host, error)",
}

// windowOnly are the bindings with no hub.Service counterpart (the
// settings ones are checked against hub.SettingsService by
// TestBindingsSettings).
var windowOnly = map[string]bool{"ChooseFolder": true, "GetSettings": true, "UpdateSettings": true,
	"ExportText": true, "ImportText": true, "OpenInBrowser": true, "SaveExport": true, "OpenElicitationURL": true,
	"OpenPullRequest": true,                     // issue 31 (bindings_work.go)
	"HostFolders":     true, "HostAgents": true, // hub.HostHubs (bindings_hosts.go)
	"HostSettings": true, "UpdateHostSettings": true, "HostRules": true, "DeleteHostRule": true, "HostUsage": true, "OverrideHostBudget": true, // hub.HostHubs.HostPolicy
	"GetUsage": true, "OverrideBudget": true, // hub.UsageService (bindings_usage.go)
	"InstallAgent": true, "RemoveAgent": true, "InstallNode": true, "NodeStatus": true,
	"SignInAgent": true, "WatchAuth": true, "AuthInput": true, "AuthResize": true, "CloseAuth": true, "SignOutAgent": true,
	"ListHosts": true, "AddHost": true, "RemoveHost": true, "ConnectHost": true,
	"Enqueue": true, "Queue": true, "EditQueued": true, "RemoveQueued": true, "SendNext": true, "MoveQueue": true} // hub.QueueService (Services.Queue)

// unbound are the hub.Service methods the window has no use for:
// AnswerClientRequest and ClientRequestParams are for a thread's owner
// (the editor bridge), and the window owns no editor thread's files.
// ExportThreads and ImportThreads stream (an io.Writer, an io.Reader): the
// window has them as ExportText and ImportText.
var unbound = map[string]bool{"AnswerClientRequest": true, "ClientRequestParams": true, "ExportThreads": true, "ImportThreads": true}

// TestBindingsContract: Bindings binds exactly the contract's methods, with
// its signatures: one per hub.Service method, of the same name, with the
// same arguments after the Caller (Subscribe: after the thread id too).
func TestBindingsContract(t *testing.T) {
	bt := reflect.TypeFor[*Bindings]()
	got := map[string]string{}
	for m := range bt.Methods() {
		got[m.Name] = m.Type.String()
	}
	for name, sig := range got {
		// m.Type has the receiver first: func(*app.Bindings, …).
		got[name] = strings.Replace(strings.Replace(sig, "*app.Bindings, ", "", 1), "*app.Bindings", "", 1)
	}
	if !reflect.DeepEqual(got, bindingsContract) {
		t.Errorf("Bindings methods\n got %v\nwant %v", got, bindingsContract)
	}
	svc := reflect.TypeFor[hub.Service]()
	// One binding per Service operation: a method added to hub.Service
	// needs its binding (and `make bindings`).
	for m := range svc.Methods() {
		if _, ok := bindingsContract[m.Name]; !ok && !unbound[m.Name] {
			t.Errorf("hub.Service.%s has no binding", m.Name)
		}
	}
	for m := range reflect.TypeFor[hub.WorkService]().Methods() {
		if _, ok := bindingsContract[m.Name]; !ok {
			t.Errorf("hub.WorkService.%s has no binding", m.Name)
		}
	}
	for name := range bindingsContract {
		if windowOnly[name] {
			continue
		}
		sm, ok := svc.MethodByName(name)
		if !ok {
			sm, ok = reflect.TypeFor[hub.WorkService]().MethodByName(name)
		}
		if !ok {
			t.Errorf("%s is not a hub.Service method", name)
			continue
		}
		bm, _ := bt.MethodByName(name)
		var sIn, bIn []reflect.Type
		for i := 0; i < sm.Type.NumIn(); i++ {
			if in := sm.Type.In(i); in != reflect.TypeFor[context.Context]() && in != reflect.TypeFor[hub.Caller]() {
				sIn = append(sIn, in)
			}
		}
		for i := 1; i < bm.Type.NumIn(); i++ {
			bIn = append(bIn, bm.Type.In(i))
		}
		if name == "Subscribe" {
			sIn = sIn[1:] // the window subscribes to every thread
		}
		if !slices.Equal(sIn, bIn) {
			t.Errorf("%s takes %v, hub.Service's takes %v", name, bIn, sIn)
		}
		if name != "Subscribe" {
			var sOut, bOut []reflect.Type
			for i := 0; i < sm.Type.NumOut(); i++ {
				sOut = append(sOut, sm.Type.Out(i))
			}
			for i := 0; i < bm.Type.NumOut(); i++ {
				bOut = append(bOut, bm.Type.Out(i))
			}
			if !slices.Equal(sOut, bOut) {
				t.Errorf("%s returns %v, hub.Service's returns %v", name, bOut, sOut)
			}
		}
	}
}

func TestFormatError(t *testing.T) {
	for _, tc := range []struct {
		err        error
		code, msg  string
		noInternal bool
	}{
		{hub.Errorf(hub.CodeNotFound, "thread %s not found", "t1"), hub.CodeNotFound, "thread t1 not found", false},
		{hub.Errorf(hub.CodeConflict, "busy"), hub.CodeConflict, "busy", false},
		{io.ErrUnexpectedEOF, hub.CodeInternal, "internal error", true},
	} {
		s, ok := formatError(tc.err).(string)
		if !ok {
			t.Fatalf("formatError(%v) is %T, want a string", tc.err, formatError(tc.err))
		}
		var got struct{ Code, Message string }
		if err := json.Unmarshal([]byte(s), &got); err != nil {
			t.Fatalf("formatError(%v) = %q: not JSON: %v", tc.err, s, err)
		}
		if got.Code != tc.code || got.Message != tc.msg {
			t.Errorf("formatError(%v) = %s, want code %s message %q", tc.err, s, tc.code, tc.msg)
		}
		if tc.noInternal && strings.Contains(s, tc.err.Error()) {
			t.Errorf("formatError leaks the cause: %s", s)
		}
	}
}

// TestBindings drives the window's bindings over a real engine and store:
// the calls, their errors, and the events forwarded as runtime events.
func TestBindings(t *testing.T) {
	b, rec, _, cwd := bindingsHub(t)

	agents, err := b.ListAgents()
	if err != nil || !slices.ContainsFunc(agents, func(a hub.Agent) bool { return a.ID == "fake" }) {
		t.Fatalf("ListAgents = %v, %v; want the fake agent", agents, err)
	}
	if err := b.Subscribe(-1); err != nil {
		t.Fatal(err)
	}
	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: cwd, Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if th.ClientID != "window" {
		t.Errorf("thread owned by %q, want window", th.ClientID)
	}
	if th, err = b.RenameThread(th.ID, "renamed"); err != nil || th.Title != "renamed" {
		t.Fatalf("RenameThread = %+v, %v", th, err)
	}
	if got, err := b.GetThread(th.ID); err != nil || got.Title != "renamed" {
		t.Fatalf("GetThread = %+v, %v", got, err)
	}
	if page, err := b.ListThreads(10, ""); err != nil || len(page.Threads) != 1 {
		t.Fatalf("ListThreads = %+v, %v", page, err)
	}
	if page, err := b.Search(hub.SearchQuery{Q: "renamed"}); err != nil || len(page.Hits) != 1 || page.Hits[0].ThreadID != th.ID {
		t.Fatalf("Search = %+v, %v; want the renamed thread's title", page, err)
	}
	if _, err := b.Search(hub.SearchQuery{Q: "a AND ("}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("Search of a malformed query: %v", err)
	}

	turn, err := b.StartTurn(th.ID, hub.TurnInput{Input: "permission"})
	if err != nil {
		t.Fatal(err)
	}
	req := rec.waitFor(t, "permission_required", func(_ emitted, e hub.Event) bool {
		return e.Type == hub.EventPermissionRequired && e.TurnID == turn.ID
	})
	perms, err := b.ListPermissions(hub.PermissionPending)
	if err != nil || len(perms) != 1 {
		t.Fatalf("ListPermissions = %+v, %v; want the one pending", perms, err)
	}
	res, err := b.DecidePermission(perms[0].ID, hub.Decision{Outcome: "approved"})
	if p := res.Permission; err != nil || p.Status != hub.PermissionApproved || p.DecidedBy != "window" || res.Rule != nil {
		t.Fatalf("DecidePermission = %+v, %v; want approved by window, no rule", res, err)
	}
	// Single use: a second answer is CONFLICT, with the code through the
	// ErrorFormatter.
	_, err = b.DecidePermission(perms[0].ID, hub.Decision{Outcome: "declined"})
	if s, _ := formatError(err).(string); !strings.Contains(s, `"code":"CONFLICT"`) {
		t.Errorf("second decision: %v (%s), want CONFLICT", err, s)
	}
	done := rec.waitFor(t, "turn_completed", func(_ emitted, e hub.Event) bool {
		return e.Type == hub.EventTurnCompleted && e.TurnID == turn.ID
	})
	if done.Seq <= req.Seq {
		t.Errorf("turn_completed seq %d not after permission_required %d", done.Seq, req.Seq)
	}

	// The data of "hub:event" is the event's wire form, as SSE sends it:
	// seq strictly increasing, the fields at the top level.
	var last int64
	for _, e := range rec.snapshot() {
		if e.name != EventHubEvent {
			t.Fatalf("unexpected runtime event %s", e.name)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(e.data, &top); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"seq", "type", "threadId", "turnId", "at"} {
			if _, ok := top[k]; !ok {
				t.Errorf("event %s has no %q", e.data, k)
			}
		}
		var ev hub.Event
		json.Unmarshal(e.data, &ev)
		if ev.Seq <= last {
			t.Errorf("seq %d after %d", ev.Seq, last)
		}
		last = ev.Seq
	}

	hist, err := b.History(th.ID, true, false)
	if err != nil || len(hist) != 1 || len(hist[0].Events) == 0 {
		t.Fatalf("History = %+v, %v", hist, err)
	}

	// Subscribe again from before the turn: the stored events come again,
	// and the earlier forwarding has stopped (no event twice after this).
	n := len(rec.snapshot())
	if err := b.Subscribe(req.Seq - 1); err != nil {
		t.Fatal(err)
	}
	rec.waitSince(t, n, "the replayed turn_completed", func(_ emitted, ev hub.Event) bool {
		return ev.Seq == done.Seq
	})
	replayed := rec.snapshot()[n:]
	if first := replayed[0]; !strings.Contains(string(first.data), `"seq":`+itoa(req.Seq)) {
		t.Errorf("replay starts with %s, want seq %d", first.data, req.Seq)
	}

	if _, err := b.CancelTurn(turn.ID); err != nil && hub.ErrorCode(err) != hub.CodeConflict {
		t.Errorf("CancelTurn of an ended turn: %v", err)
	}
	if err := b.DeleteThread(th.ID); err != nil {
		t.Fatal(err)
	}
	_, err = b.GetThread(th.ID)
	if s, _ := formatError(err).(string); !strings.Contains(s, `"code":"NOT_FOUND"`) {
		t.Errorf("GetThread of a deleted thread: %s, want NOT_FOUND", s)
	}
	_, err = b.CompactThread("no-such-thread")
	if hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("CompactThread of no thread: %v, want NOT_FOUND", err)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// resyncService is a hub.Service whose Subscribe streams the given events
// and then closes, as the engine does for a subscriber that fell behind.
type resyncService struct {
	hub.Service
	events []hub.Event
	closed chan struct{}
}

func (s *resyncService) Subscribe(ctx context.Context, c hub.Caller, thread string, after int64) (*hub.Subscription, error) {
	if c != windowCaller || thread != "" {
		return nil, hub.Errorf(hub.CodeInvalidArgument, "caller %+v thread %q", c, thread)
	}
	ch := make(chan hub.Event, len(s.events))
	for _, e := range s.events {
		ch <- e
	}
	close(ch)
	return hub.NewSubscription(ch, func() { close(s.closed) }), nil
}

func TestBindingsResync(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	svc := &resyncService{closed: make(chan struct{}), events: []hub.Event{
		{Seq: 7, Type: hub.EventMessageDelta, ThreadID: "t", TurnID: "u", At: at, Payload: json.RawMessage(`{"text":"hi"}`)},
		{Type: hub.EventResync, At: at, Payload: json.RawMessage(`{}`)},
	}}
	rec := newRecorder()
	b := NewBindings(context.Background(), hub.Services{Service: svc}, rec, nil)
	if err := b.Subscribe(0); err != nil {
		t.Fatal(err)
	}
	select {
	case <-svc.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription was not closed after a resync")
	}
	b.stop()
	got := rec.snapshot()
	if len(got) != 2 || got[0].name != EventHubEvent || got[1].name != EventHubResync {
		t.Fatalf("emitted %v, want hub:event then hub:resync", got)
	}
	want := `{"seq":7,"type":"message_delta","threadId":"t","turnId":"u","at":"2026-01-02T03:04:05Z","text":"hi"}`
	if string(got[0].data) != want {
		t.Errorf("hub:event data %s\nwant %s", got[0].data, want)
	}
}

// The window gets an event over limits.liveEventBytes cut, as SSE sends
// it (truncated, bytes); HistoryPage serves it whole.
func TestBindingsCutLargeEvents(t *testing.T) {
	b, rec, _, cwd := bindingsHub(t)
	b.liveEventBytes = func() int { return 64 << 10 }
	if err := b.Subscribe(-1); err != nil {
		t.Fatal(err)
	}
	th, err := b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := b.StartTurn(th.ID, hub.TurnInput{Input: "bigline 200000"})
	if err != nil {
		t.Fatal(err)
	}
	var data json.RawMessage
	rec.waitFor(t, "the big message", func(e emitted, ev hub.Event) bool {
		if ev.Type == hub.EventMessageDelta && ev.TurnID == turn.ID {
			data = e.data
			return true
		}
		return false
	})
	var m struct {
		Text      string `json:"text"`
		Truncated bool   `json:"truncated"`
		Bytes     int    `json:"bytes"`
	}
	if err := json.Unmarshal(data, &m); err != nil || len(data) > 64<<10 || !m.Truncated || m.Bytes < 200000-256 || // redaction may hold back ≤ 256 bytes
		m.Text == "" {
		t.Fatalf("window got %d bytes: truncated %v, bytes %d (%v)", len(data), m.Truncated, m.Bytes, err)
	}
	rec.waitFor(t, "turn_completed", func(_ emitted, ev hub.Event) bool {
		return ev.Type == hub.EventTurnCompleted && ev.TurnID == turn.ID
	})
	page, err := b.HistoryPage(th.ID, hub.HistoryQuery{IncludeEvents: true, Limit: 10})
	if err != nil || len(page.Turns) != 1 || page.NextCursor != "" {
		t.Fatalf("HistoryPage = %+v, %v", page, err)
	}
	// History holds the message whole: no event cut, and the deltas (the
	// redactor may have split off the last word) add up to all of it.
	text := 0
	for _, ev := range page.Turns[0].Events {
		if ev.Type != hub.EventMessageDelta {
			continue
		}
		var d struct {
			Text      string `json:"text"`
			Truncated bool   `json:"truncated"`
		}
		if err := json.Unmarshal(ev.Payload, &d); err != nil || d.Truncated {
			t.Fatalf("history has the message cut: %d bytes (%v)", len(ev.Payload), err)
		}
		text += len(d.Text)
	}
	if text != 200000 {
		t.Fatalf("history has %d bytes of message text, want 200000", text)
	}
}
