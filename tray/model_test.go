package tray

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

var t0 = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

func perm(id, thread, turn, title string, kinds ...string) hub.Permission {
	p := hub.Permission{ID: id, ThreadID: thread, TurnID: turn, Status: "pending",
		ToolCall:  json.RawMessage(fmt.Sprintf(`{"toolCallId":"call","title":%q,"kind":"execute"}`, title)),
		CreatedAt: t0}
	for _, k := range kinds {
		p.Options = append(p.Options, hub.PermissionOption{OptionID: k + "-id", Name: k, Kind: k})
	}
	return p
}

func resolved(p hub.Permission, status string) hub.Permission {
	p.Status = status
	return p
}

// with is ev with the payload {field: v}.
func with(ev hub.Event, field string, v any) hub.Event {
	b, err := json.Marshal(map[string]any{field: v})
	if err != nil {
		panic(err)
	}
	ev.Payload = b
	return ev
}

// permEvent is a permission_required or permission_resolved event of p.
func permEvent(typ string, p hub.Permission) hub.Event {
	return with(hub.Event{Type: typ, ThreadID: p.ThreadID, TurnID: p.TurnID}, "permission", p)
}

func ptr[T any](v T) *T { return &v }

// snap is a connected hub with two threads of two agents.
func snap() Snapshot {
	return Snapshot{
		Agents: []hub.Agent{{ID: "claude", Name: "Claude Code"}},
		Threads: []hub.Thread{
			{ID: "th1", Agent: "claude", Title: "Fix the build", Status: "idle"},
			{ID: "th2", Agent: "codex", Title: "Docs", Status: "idle"},
		},
	}
}

func TestModelMenu(t *testing.T) {
	tests := []struct {
		name  string
		steps func(m *Model)
		want  Menu
	}{
		{
			name:  "not connected yet",
			steps: func(m *Model) {},
			want: Menu{Icon: IconTrouble, Status: "Hub unreachable: connecting",
				Tooltip: "Switchboard: hub unreachable (connecting)"},
		},
		{
			name:  "idle",
			steps: func(m *Model) { m.Connect(snap()) },
			want:  Menu{Icon: IconIdle, Status: "No agents working", Tooltip: "Switchboard: No agents working", Connected: true},
		},
		{
			name: "working",
			steps: func(m *Model) {
				m.Connect(snap())
				m.Apply(hub.Event{Seq: 1, Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1", At: t0})
				m.Apply(hub.Event{Seq: 2, Type: "message_delta", ThreadID: "th1", TurnID: "tu1", At: t0})
				m.Apply(hub.Event{Seq: 3, Type: hub.EventTurnStarted, ThreadID: "th2", TurnID: "tu2", At: t0.Add(time.Second)})
			},
			want: Menu{Icon: IconWorking, Status: "2 agents working", Tooltip: "Switchboard: 2 agents working", Connected: true,
				Turns: []TurnItem{{"tu1", "Claude Code: Fix the build", "th1"}, {"tu2", "codex: Docs", "th2"}}},
		},
		{
			name: "needs you",
			steps: func(m *Model) {
				s := snap()
				s.Running = []hub.Turn{{ID: "tu1", ThreadID: "th1", Status: "running", StartedAt: t0}, {ID: "tu2", ThreadID: "th2", Status: "running", StartedAt: t0}}
				m.Connect(s)
				m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th1", "tu1", "rm -rf build", "allow_once", "allow_always", "reject_once")))
			},
			want: Menu{Icon: IconNeedsYou, Title: "1", Status: "2 agents working · 1 approval waiting",
				Tooltip: "Switchboard: 2 agents working · 1 approval waiting", Connected: true,
				Permissions: []PermissionItem{{ID: "pe1", ThreadID: "th1", Title: "Claude Code: rm -rf build",
					Approve: &hub.Decision{OptionID: "allow_once-id"}, Deny: &hub.Decision{OptionID: "reject_once-id"},
					Always:        &hub.Decision{OptionID: "allow_always-id"},
					RememberAllow: &hub.Decision{Outcome: "approved", Remember: "thread"}, RememberDeny: &hub.Decision{Outcome: "declined", Remember: "thread"}}},
				Turns: []TurnItem{{"tu1", "Claude Code: Fix the build", "th1"}, {"tu2", "codex: Docs", "th2"}}},
		},
		{
			name: "deny falls back to reject_always, then declined; no allow_always, no Always",
			steps: func(m *Model) {
				s := snap()
				s.Permissions = []hub.Permission{
					perm("pe1", "th1", "tu1", "a", "allow_once", "reject_always"),
					perm("pe2", "th2", "tu2", "b", "allow_once"),
				}
				s.Permissions[1].CreatedAt = t0.Add(time.Second)
				m.Connect(s)
			},
			want: Menu{Icon: IconNeedsYou, Title: "2", Status: "2 approvals waiting",
				Tooltip: "Switchboard: 2 approvals waiting", Connected: true,
				Permissions: []PermissionItem{
					{ID: "pe1", ThreadID: "th1", Title: "Claude Code: a", Approve: &hub.Decision{OptionID: "allow_once-id"}, Deny: &hub.Decision{OptionID: "reject_always-id"}, RememberAllow: &hub.Decision{Outcome: "approved", Remember: "thread"}, RememberDeny: &hub.Decision{Outcome: "declined", Remember: "thread"}},
					{ID: "pe2", ThreadID: "th2", Title: "codex: b", Approve: &hub.Decision{OptionID: "allow_once-id"}, Deny: &hub.Decision{Outcome: "declined"}, RememberAllow: &hub.Decision{Outcome: "approved", Remember: "thread"}, RememberDeny: &hub.Decision{Outcome: "declined", Remember: "thread"}},
				}},
		},
		{
			name: "resolved and completed go away",
			steps: func(m *Model) {
				m.Connect(snap())
				p := perm("pe1", "th1", "tu1", "x", "allow_once", "reject_once")
				m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1"})
				m.Apply(permEvent(hub.EventPermissionRequired, p))
				m.Apply(permEvent(hub.EventPermissionResolved, resolved(p, "approved")))
				m.Apply(permEvent(hub.EventPermissionRequired, perm("pe2", "th1", "tu1", "y")))
				m.Apply(with(hub.Event{Type: hub.EventTurnCompleted, ThreadID: "th1", TurnID: "tu1"}, "turn", hub.Turn{ID: "tu1", Status: "cancelled"}))
			},
			want: Menu{Icon: IconIdle, Status: "No agents working", Tooltip: "Switchboard: No agents working", Connected: true},
		},
		{
			name: "replayed events converge: a stale required after resolved in the snapshot",
			steps: func(m *Model) {
				m.Connect(snap())
				p := perm("pe1", "th1", "tu1", "x")
				m.Apply(with(hub.Event{Seq: 5, Type: hub.EventPermissionRequired}, "permission", p))
				m.Apply(with(hub.Event{Seq: 6, Type: hub.EventPermissionResolved}, "permission", resolved(p, "expired")))
				m.Apply(with(hub.Event{Seq: 6, Type: hub.EventPermissionResolved}, "permission", resolved(p, "expired")))
			},
			want: Menu{Icon: IconIdle, Status: "No agents working", Tooltip: "Switchboard: No agents working", Connected: true},
		},
		{
			name: "a deleted thread takes its turn and permission",
			steps: func(m *Model) {
				m.Connect(snap())
				m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1"})
				m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th1", "tu1", "x")))
				m.Apply(with(hub.Event{Type: hub.EventThreadUpdated, ThreadID: "th1"}, "thread", hub.Thread{ID: "th1", Status: "closed"}))
			},
			want: Menu{Icon: IconIdle, Status: "No agents working", Tooltip: "Switchboard: No agents working", Connected: true},
		},
		{
			name: "unknown thread and renamed thread",
			steps: func(m *Model) {
				m.Connect(snap())
				m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th9", TurnID: "tu9"})
				m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1", At: t0})
				m.Apply(with(hub.Event{Type: hub.EventThreadUpdated, ThreadID: "th1"}, "thread", hub.Thread{ID: "th1", Agent: "claude", Title: "Renamed", Status: "running"}))
			},
			want: Menu{Icon: IconWorking, Status: "2 agents working", Tooltip: "Switchboard: 2 agents working", Connected: true,
				Turns: []TurnItem{{"tu9", "Agent: working", "th9"}, {"tu1", "Claude Code: Renamed", "th1"}}},
		},
		{
			name: "disconnect drops everything",
			steps: func(m *Model) {
				s := snap()
				s.Permissions = []hub.Permission{perm("pe1", "th1", "tu1", "a", "allow_once")}
				m.Connect(s)
				m.Disconnect("cannot connect")
			},
			want: Menu{Icon: IconTrouble, Status: "Hub unreachable: cannot connect",
				Tooltip: "Switchboard: hub unreachable (cannot connect)"},
		},
		{
			name: "no hub at all: not running, offered to start",
			steps: func(m *Model) {
				m.Connect(snap())
				m.Disconnect(ReasonNotRunning)
			},
			want: Menu{Icon: IconTrouble, Status: "Switchboard is not running",
				Tooltip: "Switchboard is not running", NotRunning: true},
		},
		{
			name: "snapshot skips closed threads, finished turns and decided permissions",
			steps: func(m *Model) {
				s := snap()
				s.Threads = append(s.Threads, hub.Thread{ID: "th3", Agent: "x", Status: "closed"})
				s.Running = []hub.Turn{{ID: "tu1", ThreadID: "th1", Status: "completed"}}
				s.Permissions = []hub.Permission{resolved(perm("pe1", "th1", "tu1", "a"), "approved")}
				m.Connect(s)
			},
			want: Menu{Icon: IconIdle, Status: "No agents working", Tooltip: "Switchboard: No agents working", Connected: true},
		},
		{
			name: "long and multi-line titles are cut",
			steps: func(m *Model) {
				m.Connect(snap())
				p := perm("pe1", "th1", "tu1", "line one\nline two "+
					"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "allow_once")
				m.Apply(permEvent(hub.EventPermissionRequired, p))
			},
			want: Menu{Icon: IconNeedsYou, Title: "1", Status: "1 approval waiting",
				Tooltip: "Switchboard: 1 approval waiting", Connected: true,
				Permissions: []PermissionItem{{ID: "pe1", ThreadID: "th1",
					Title:   "Claude Code: line one line two aaaaaaaaaaaaaaaaaaaaaaaaaaaa…",
					Approve: &hub.Decision{OptionID: "allow_once-id"}, Deny: &hub.Decision{Outcome: "declined"},
					RememberAllow: &hub.Decision{Outcome: "approved", Remember: "thread"}, RememberDeny: &hub.Decision{Outcome: "declined", Remember: "thread"}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewModel()
			tt.steps(m)
			got := m.Menu()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("menu\n got %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

func TestUnknownThreads(t *testing.T) {
	m := NewModel()
	m.Connect(snap())
	m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th9", TurnID: "tu9"})
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th8", "tu8", "x")))
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe2", "th9", "tu9", "x")))
	if got := m.UnknownThreads(); !reflect.DeepEqual(got, []string{"th8", "th9"}) {
		t.Fatalf("unknown %q", got)
	}
	m.SetThread(hub.Thread{ID: "th9", Agent: "a", Title: "T", Status: "running"})
	if got := m.UnknownThreads(); !reflect.DeepEqual(got, []string{"th8"}) {
		t.Fatalf("unknown %q", got)
	}
}

func TestToolTitle(t *testing.T) {
	for raw, want := range map[string]string{
		`{"title":"Edit x","kind":"edit"}`: "Edit x",
		`{"kind":"fetch"}`:                 "fetch",
		`{}`:                               "a tool call",
		``:                                 "a tool call",
		`"garbage"`:                        "a tool call",
	} {
		if got := toolTitle(hub.Permission{ToolCall: json.RawMessage(raw)}); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

func TestIconStateString(t *testing.T) {
	for s, want := range map[IconState]string{IconIdle: "idle", IconWorking: "working", IconNeedsYou: "needs you", IconTrouble: "trouble", IconEscalated: "escalated", 9: "IconState(9)"} {
		if s.String() != want {
			t.Errorf("%d: %q", s, s.String())
		}
	}
}

// An escalated permission (permission_escalated, or escalatedAt in the
// snapshot) puts the tray in its escalated state: its own icon, "!" after
// the count, the count of escalated ones in the status and tooltip, and
// "⚠" before the permission's entry. It stays escalated whatever older
// copy of the permission comes after, and goes when it is decided.
func TestModelEscalated(t *testing.T) {
	m := NewModel()
	s := snap()
	p1 := perm("pe1", "th1", "tu1", "make clean", "allow_once", "reject_once")
	p2 := perm("pe2", "th2", "tu2", "ls", "allow_once")
	p2.CreatedAt = t0.Add(time.Second)
	s.Permissions = []hub.Permission{p1, p2}
	m.Connect(s)
	if got := m.Menu(); got.Icon != IconNeedsYou || got.Title != "2" {
		t.Fatalf("before: %s", dump(got))
	}
	esc := p1
	esc.EscalatedAt = ptr(t0.Add(2 * time.Minute))
	m.Apply(permEvent(hub.EventPermissionEscalated, esc))
	check := func(what string) {
		t.Helper()
		got := m.Menu()
		if got.Icon != IconEscalated || got.Title != "2!" ||
			got.Status != "2 approvals waiting · 1 waiting too long: needs you" ||
			got.Tooltip != "Switchboard: 2 approvals waiting · 1 waiting too long: needs you" {
			t.Fatalf("%s: %s", what, dump(got))
		}
		if p := got.Permissions[0]; p.ID != "pe1" || !p.Escalated || p.Title != "⚠ Claude Code: make clean" ||
			!reflect.DeepEqual(p.RememberAllow, &hub.Decision{Outcome: "approved", Remember: "thread"}) {
			t.Fatalf("%s: escalated entry %+v", what, p)
		}
		if p := got.Permissions[1]; p.Escalated || p.Title != "codex: ls" {
			t.Fatalf("%s: the other entry %+v", what, p)
		}
	}
	check("after permission_escalated")
	// A permission_required of it replayed after the escalation.
	m.Apply(permEvent(hub.EventPermissionRequired, p1))
	check("after a stale permission_required")
	// A snapshot that carries escalatedAt.
	s.Permissions = []hub.Permission{esc, p2}
	m.Connect(s)
	check("from a snapshot")
	m.Apply(permEvent(hub.EventPermissionResolved, resolved(p1, "declined")))
	if got := m.Menu(); got.Icon != IconNeedsYou || got.Title != "1" || got.Status != "1 approval waiting" {
		t.Fatalf("after the escalated one was decided: %s", dump(got))
	}
	// Without an allow_once option, "Always allow in this thread" (outcome
	// approved, which selects it) is not offered; the deny one is.
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe3", "th1", "tu1", "rm", "allow_always", "reject_once")))
	for _, it := range m.Menu().Permissions {
		if it.ID == "pe3" && (it.RememberAllow != nil || it.Approve != nil || it.RememberDeny == nil || it.Always == nil) {
			t.Errorf("without allow_once: %+v", it)
		}
	}
	m.Apply(permEvent(hub.EventPermissionResolved, resolved(perm("pe3", "th1", "tu1", "rm"), "declined")))
	// An escalation of a permission already decided shows nothing.
	m.Apply(permEvent(hub.EventPermissionEscalated, resolved(esc, "expired")))
	if got := m.Menu(); got.Icon != IconNeedsYou || len(got.Permissions) != 1 {
		t.Fatalf("after a decided escalation: %s", dump(got))
	}
}

func dump(m Menu) string {
	b, _ := json.MarshalIndent(m, "", " ")
	return string(b)
}

// A config file the hub refused: the trouble icon (unless an approval
// waits) and the reason in the tooltip, until the hub says it is valid
// again or a new snapshot comes.
func TestModelConfigError(t *testing.T) {
	m := NewModel()
	m.Connect(Snapshot{})
	m.Apply(with(hub.Event{Type: hub.EventConfigError}, "message", "config /c/config.yaml: line 2: unknown key lissten"))
	got := m.Menu()
	if got.Icon != IconTrouble || got.Status != "config file not applied" || !strings.Contains(got.Tooltip, "line 2: unknown key lissten") {
		t.Fatalf("menu %+v", got)
	}
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th1", "tu1", "ls", "allow_once")))
	if got := m.Menu(); got.Icon != IconNeedsYou || !strings.Contains(got.Status, "config file not applied") {
		t.Fatalf("an approval must win the icon: %+v", got)
	}
	m.Apply(hub.Event{Type: hub.EventConfigError})
	if got := m.Menu(); strings.Contains(got.Status, "config") || strings.Contains(got.Tooltip, "lissten") {
		t.Fatalf("after the fix: %+v", got)
	}
	m.Apply(with(hub.Event{Type: hub.EventConfigError}, "message", "bad"))
	m.Connect(Snapshot{})
	if got := m.Menu(); got.Icon != IconIdle {
		t.Fatalf("a new snapshot starts clean: %+v", got)
	}
}

// Payload fields of another shape than the model expects are ignored as
// if absent, each on its own; the model goes on with the next events.
func TestModelOddPayloads(t *testing.T) {
	m := NewModel()
	m.Connect(snap())
	m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1", At: t0})
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th1", "tu1", "ls", "allow_once")))
	for _, ev := range []hub.Event{
		with(hub.Event{Type: hub.EventPermissionResolved}, "permission", "a string from the future"),
		with(hub.Event{Type: hub.EventPermissionRequired}, "permission", nil),
		with(hub.Event{Type: hub.EventThreadUpdated, ThreadID: "th1"}, "thread", []int{1, 2}),
		with(hub.Event{Type: hub.EventTurnCompleted, ThreadID: "th1", TurnID: "tu9"}, "turn", "x"), // falls back to turnId
		{Type: hub.EventThreadUpdated, Payload: json.RawMessage(`not json`)},
		{Type: hub.EventPermissionRequired},
		{Type: "future_type", Payload: json.RawMessage(`{"x":[1]}`)},
	} {
		m.Apply(ev)
	}
	got := m.Menu()
	if got.Status != "1 agent working · 1 approval waiting" || got.Turns[0].Title != "Claude Code: Fix the build" {
		t.Fatalf("after odd events: %s", dump(got))
	}
	m.Apply(with(hub.Event{Type: hub.EventTurnCompleted, ThreadID: "th1", TurnID: "tu1"}, "turn", "x"))
	m.Apply(with(hub.Event{Type: hub.EventConfigError}, "message", 42))
	if got := m.Menu(); got.Icon != IconIdle {
		t.Fatalf("a turn_completed whose turn is unreadable ends its turnId: %s", dump(got))
	}
}
