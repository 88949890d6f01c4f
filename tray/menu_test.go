package tray

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// fakeItem records what the layout does to a menu entry.
type fakeItem struct {
	title    string
	tooltip  string
	parent   *fakeItem
	hidden   bool
	disabled bool
	calls    int // SetTitle, Show, Hide, Enable, Disable calls
}

func (f *fakeItem) SetTitle(s string) { f.title = s; f.calls++ }
func (f *fakeItem) Show()             { f.hidden = false; f.calls++ }
func (f *fakeItem) Hide()             { f.hidden = true; f.calls++ }
func (f *fakeItem) Enable()           { f.disabled = false; f.calls++ }
func (f *fakeItem) Disable()          { f.disabled = true; f.calls++ }

// fakeTray is a menu of fakeItems in creation order.
type fakeTray struct {
	items []*fakeItem // separators are items titled "----"
	clk   *fakeClock
	l     *layout
}

func newFakeTray() *fakeTray {
	ft := &fakeTray{clk: newFakeClock()}
	ft.l = newLayout(ft.clk.Now, func(title, tooltip string, parent item) item {
		it := &fakeItem{title: title, tooltip: tooltip}
		if parent != nil {
			it.parent = parent.(*fakeItem)
		}
		ft.items = append(ft.items, it)
		return it
	}, func() { ft.items = append(ft.items, &fakeItem{title: "----"}) })
	return ft
}

// visible renders what a user sees: top-level entries, submenu entries
// indented, disabled ones in brackets.
func (ft *fakeTray) visible() string {
	var b strings.Builder
	shown := func(it *fakeItem) bool {
		for p := it; p != nil; p = p.parent {
			if p.hidden {
				return false
			}
		}
		return true
	}
	for _, it := range ft.items {
		if !shown(it) {
			continue
		}
		if it.parent != nil {
			b.WriteString("  ")
		}
		if it.disabled {
			fmt.Fprintf(&b, "[%s]\n", it.title)
		} else {
			fmt.Fprintf(&b, "%s\n", it.title)
		}
	}
	return b.String()
}

func TestLayout(t *testing.T) {
	ft := newFakeTray()
	if got, want := ft.visible(), "[Connecting to Switchboard…]\n----\n----\nOpen Switchboard\n[Quit Switchboard]\nQuit tray\n"; got != want {
		t.Fatalf("initial menu:\n%s\nwant:\n%s", got, want)
	}
	m := NewModel()
	m.Connect(snap())
	m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th1", TurnID: "tu1", At: t0})
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe1", "th1", "tu1", "rm -rf build", "allow_once", "allow_always", "reject_once")))
	p2 := perm("pe2", "th2", "tu2", "curl", "allow_once")
	p2.CreatedAt = t0.Add(time.Second)
	m.Apply(permEvent(hub.EventPermissionRequired, p2))
	ft.l.show(m.Menu())
	want := `[1 agent working · 2 approvals waiting]
----
Claude Code: rm -rf build
  Approve
  Deny
  Always allow
  Always allow in this thread
  Always deny in this thread
  Open thread
codex: curl
  Approve
  Deny
  Always allow in this thread
  Always deny in this thread
  Open thread
Claude Code: Fix the build
  Cancel
  Open thread
----
Open Switchboard
Quit Switchboard
Quit tray
`
	if got := ft.visible(); got != want {
		t.Fatalf("menu:\n%s\nwant:\n%s", got, want)
	}

	// Clicks act only once the slot has been stable for reassignGrace.
	if a := ft.l.clickPermission(0, clickApprove); a.Kind != ActNone {
		t.Fatalf("click on a fresh slot: %v", a)
	}
	ft.clk.Advance(reassignGrace)
	tests := []struct {
		slot, which int
		want        Action
	}{
		{0, clickApprove, Action{Kind: ActDecide, Permission: "pe1", Decision: hub.Decision{OptionID: "allow_once-id"}}},
		{0, clickDeny, Action{Kind: ActDecide, Permission: "pe1", Decision: hub.Decision{OptionID: "reject_once-id"}}},
		{0, clickAlways, Action{Kind: ActDecide, Permission: "pe1", Decision: hub.Decision{OptionID: "allow_always-id"}}},
		{1, clickDeny, Action{Kind: ActDecide, Permission: "pe2", Decision: hub.Decision{Outcome: "declined"}}},
		{0, clickRememberAllow, Action{Kind: ActDecide, Permission: "pe1", Decision: hub.Decision{Outcome: "approved", Remember: "thread"}}},
		{0, clickRememberDeny, Action{Kind: ActDecide, Permission: "pe1", Decision: hub.Decision{Outcome: "declined", Remember: "thread"}}},
		{1, clickAlways, Action{}},  // not offered
		{2, clickApprove, Action{}}, // empty slot
	}
	for _, tt := range tests {
		if a := ft.l.clickPermission(tt.slot, tt.which); !reflect.DeepEqual(a, tt.want) {
			t.Errorf("slot %d click %d: %v, want %v", tt.slot, tt.which, a, tt.want)
		}
	}
	if a := ft.l.clickCancel(0); !reflect.DeepEqual(a, Action{Kind: ActCancel, Turn: "tu1"}) {
		t.Errorf("cancel: %v", a)
	}
	// Open thread shows the thread the permission or turn is about.
	if a := ft.l.clickOpenPermission(1); !reflect.DeepEqual(a, Action{Kind: ActOpen, Thread: "th2"}) {
		t.Errorf("open the permission's thread: %v", a)
	}
	if a := ft.l.clickOpenTurn(0); !reflect.DeepEqual(a, Action{Kind: ActOpen, Thread: "th1"}) {
		t.Errorf("open the turn's thread: %v", a)
	}
	if a := ft.l.clickOpenPermission(2); a.Kind != ActNone {
		t.Errorf("open on an empty slot: %v", a)
	}

	// pe1 goes: pe2 keeps its slot (a click meant for it still reaches it),
	// and a new permission takes the freed slot, not clickable at once.
	m.Apply(permEvent(hub.EventPermissionResolved, resolved(perm("pe1", "th1", "tu1", "x"), "approved")))
	ft.l.show(m.Menu())
	if a := ft.l.clickPermission(1, clickApprove); a.Permission != "pe2" {
		t.Errorf("pe2 moved: %v", a)
	}
	if a := ft.l.clickPermission(0, clickApprove); a.Kind != ActNone {
		t.Errorf("an emptied slot answered %v", a)
	}
	m.Apply(permEvent(hub.EventPermissionRequired, perm("pe3", "th1", "tu1", "ls", "allow_once", "reject_once")))
	ft.l.show(m.Menu())
	if a := ft.l.clickPermission(0, clickApprove); a.Kind != ActNone {
		t.Errorf("a reassigned slot answered at once: %v", a)
	}
	ft.clk.Advance(reassignGrace)
	if a := ft.l.clickPermission(0, clickApprove); a.Permission != "pe3" {
		t.Errorf("reassigned slot: %v", a)
	}
	if got := ft.visible(); !strings.Contains(got, "Claude Code: ls\n  Approve\n  Deny\n  Always allow in this thread\n  Always deny in this thread\n  Open thread\ncodex: curl\n") {
		t.Errorf("menu:\n%s", got)
	}

	// Showing the same menu again touches nothing.
	calls := 0
	for _, it := range ft.items {
		calls += it.calls
	}
	ft.l.show(m.Menu())
	after := 0
	for _, it := range ft.items {
		after += it.calls
	}
	if after != calls {
		t.Errorf("an unchanged menu made %d calls", after-calls)
	}

	// Disconnected: only the status line and the fixed entries.
	m.Disconnect("cannot connect")
	ft.l.show(m.Menu())
	if got, want := ft.visible(), "[Hub unreachable: cannot connect]\n----\n----\nOpen Switchboard\n[Quit Switchboard]\nQuit tray\n"; got != want {
		t.Fatalf("disconnected menu:\n%s\nwant:\n%s", got, want)
	}

	// No hub runs at all (a tray started at login): Open is Start.
	m.Disconnect(ReasonNotRunning)
	ft.l.show(m.Menu())
	if got, want := ft.visible(), "[Switchboard is not running]\n----\n----\nStart Switchboard\n[Quit Switchboard]\nQuit tray\n"; got != want {
		t.Fatalf("not-running menu:\n%s\nwant:\n%s", got, want)
	}
	m.Connect(snap())
	ft.l.show(m.Menu())
	if got := ft.visible(); !strings.Contains(got, "\nOpen Switchboard\n") {
		t.Fatalf("connected again, Open is back:\n%s", got)
	}
}

func TestLayoutOverflow(t *testing.T) {
	ft := newFakeTray()
	m := NewModel()
	m.Connect(snap())
	for i := range maxPermissionSlots + 3 {
		p := perm(fmt.Sprintf("pe%02d", i), "th1", "tu1", fmt.Sprint("tool ", i), "allow_once")
		p.CreatedAt = t0.Add(time.Duration(i) * time.Second)
		m.Apply(permEvent(hub.EventPermissionRequired, p))
	}
	for i := range maxTurnSlots + 1 {
		m.Apply(hub.Event{Type: hub.EventTurnStarted, ThreadID: "th2", TurnID: fmt.Sprintf("tu%02d", i), At: t0.Add(time.Duration(i) * time.Second)})
	}
	ft.l.show(m.Menu())
	got := ft.visible()
	for _, want := range []string{"[3 more approvals waiting]\n", "[1 more agent working]\n", "Claude Code: tool 7\n", "codex: Docs\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("menu lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "tool 8") {
		t.Errorf("overflowing permission shown:\n%s", got)
	}
}

func TestActionString(t *testing.T) {
	for a, want := range map[Action]string{
		{}:                             "none",
		{Kind: ActCancel, Turn: "tu1"}: "cancel tu1",
		{Kind: ActOpen}:                "open",
		{Kind: ActQuitTray}:            "quit tray",
		{Kind: ActDecide, Permission: "pe1", Decision: hub.Decision{Outcome: "declined"}}: "decide pe1 {Outcome:declined OptionID: Remember:}",
	} {
		if got := a.String(); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
