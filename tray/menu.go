package tray

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// The tray menu, top to bottom:
//
//	status line                      (disabled)
//	────────
//	<agent>: <what runs>        ▸    [Runs: … / In: … / ⚠ …]          × maxPermissionSlots
//	                                 Approve / Deny / Always allow /
//	                                 Always allow in this thread /
//	                                 Always deny in this thread /
//	                                 Open thread
//	N more approvals waiting         (disabled, only on overflow)
//	<agent>: <thread title>     ▸    Cancel / Open thread           × maxTurnSlots
//	N more agents working            (disabled, only on overflow)
//	────────
//	Open Switchboard                 ("Start Switchboard" while none runs)
//	Quit Switchboard                 (POST /v1/shutdown; disabled while no hub answers)
//	Quit tray
//
// getlantern/systray can only append items and cannot remove them, so every
// slot is made once, in this order, and hidden while unused.
const (
	maxPermissionSlots = 8
	maxTurnSlots       = 8
)

// reassignGrace: a click on a slot that began showing another permission
// or turn this recently is ignored, so a menu that changed under the
// pointer never approves or cancels something the user did not see.
const reassignGrace = time.Second

// item is what the layout needs of a menu entry; *systray.MenuItem has it.
type item interface {
	SetTitle(string)
	Show()
	Hide()
	Enable()
	Disable()
}

// Action is what a click asks the tray to do.
type Action struct {
	Kind       ActionKind
	Permission string       // ActDecide
	Decision   hub.Decision // ActDecide
	Turn       string       // ActCancel
	Thread     string       // ActOpen: the thread to show ("": the app)
}

// ActionKind names an Action.
type ActionKind int

const (
	ActNone ActionKind = iota
	ActDecide
	ActCancel
	ActOpen
	ActQuitHub
	ActQuitTray
)

func (a Action) String() string {
	switch a.Kind {
	case ActDecide:
		return fmt.Sprintf("decide %s %+v", a.Permission, a.Decision)
	case ActCancel:
		return "cancel " + a.Turn
	case ActOpen:
		if a.Thread != "" {
			return "open " + a.Thread
		}
		return "open"
	case ActQuitHub:
		return "quit hub"
	case ActQuitTray:
		return "quit tray"
	}
	return "none"
}

// permSlot is one permission submenu: up to maxDetails disabled lines of
// what it allows, then its six entries (Open thread is shown whenever the
// submenu is).
type permSlot struct {
	parent, approve, deny, always, rememberAllow, rememberDeny, open item
	details                                                          [maxDetails]item
	detailShown                                                      [maxDetails]bool
	slotState[PermissionItem]
	visible [6]bool // parent, approve, deny, always, rememberAllow, rememberDeny
}

// turnSlot is one running turn's submenu and its Cancel and Open thread
// entries.
type turnSlot struct {
	parent, cancel, open item
	slotState[TurnItem]
	visible bool
}

// slotState is what a menu slot shows, and since when.
type slotState[T any] struct {
	shown T         // the zero T (empty id) while the slot is free
	since time.Time // when shown's id last changed
}

// assignSlots keeps each item of items that a slot already shows in that
// slot (updated), frees the slots whose item is gone, and puts the new
// items in free slots in items' order: an entry never moves under the
// pointer while it stays. It returns how many items found no free slot.
func assignSlots[T any](slots []*slotState[T], items []T, id func(T) string, now time.Time) (overflow int) {
	byID := make(map[string]T, len(items))
	for _, it := range items {
		byID[id(it)] = it
	}
	placed := map[string]bool{}
	var zero T
	for _, s := range slots {
		if it, ok := byID[id(s.shown)]; ok && id(s.shown) != "" {
			s.shown = it
			placed[id(it)] = true
		} else if id(s.shown) != "" {
			s.shown, s.since = zero, now
		}
	}
	for _, it := range items {
		if placed[id(it)] {
			continue
		}
		free := slices.IndexFunc(slots, func(s *slotState[T]) bool { return id(s.shown) == "" })
		if free < 0 {
			overflow++
			continue
		}
		slots[free].shown, slots[free].since = it, now
	}
	return overflow
}

// layout maps Menus onto fixed menu items. Its methods are safe for
// concurrent use: show runs on the Watcher's goroutine, click on the
// items' click goroutines.
type layout struct {
	now func() time.Time

	mu            sync.Mutex
	status        item
	perms         []permSlot
	morePerms     item
	turns         []turnSlot
	moreTurns     item
	open, quitHub item
	quitTray      item
	titles        map[item]string // last title set, to skip unchanged ones
	shownMore     [2]bool
	connected     bool
}

// newLayout makes the items through add (title, tooltip, parent: nil for
// the top level) and sep (a separator), in menu order, hidden where unused.
func newLayout(now func() time.Time, add func(title, tooltip string, parent item) item, sep func()) *layout {
	l := &layout{now: now, titles: map[item]string{}}
	l.status = add("Connecting to Switchboard…", "", nil)
	l.status.Disable()
	sep()
	for range maxPermissionSlots {
		var s permSlot
		s.parent = add("", "A permission an agent asks for", nil)
		for i := range s.details {
			s.details[i] = add("", "What an approval allows", s.parent)
			s.details[i].Disable()
			s.details[i].Hide()
		}
		s.approve = add("Approve", "Allow this once", s.parent)
		s.deny = add("Deny", "Refuse it", s.parent)
		s.always = add("Always allow", "Allow it now and from now on (the agent remembers)", s.parent)
		s.rememberAllow = add("Always allow in this thread", "Allow it, and let Switchboard allow the same request in this thread from now on", s.parent)
		s.rememberDeny = add("Always deny in this thread", "Refuse it, and let Switchboard refuse the same request in this thread from now on", s.parent)
		s.open = add("Open thread", "Show the thread that asks", s.parent)
		s.parent.Hide()
		s.visible = [6]bool{false, true, true, true, true, true} // the entries start shown
		l.perms = append(l.perms, s)
	}
	l.morePerms = add("", "Open Switchboard to see them all", nil)
	l.morePerms.Disable()
	l.morePerms.Hide()
	for range maxTurnSlots {
		var s turnSlot
		s.parent = add("", "A running turn", nil)
		s.cancel = add("Cancel", "Cancel this turn", s.parent)
		s.open = add("Open thread", "Show this turn's thread", s.parent)
		s.parent.Hide()
		l.turns = append(l.turns, s)
	}
	l.moreTurns = add("", "Open Switchboard to see them all", nil)
	l.moreTurns.Disable()
	l.moreTurns.Hide()
	sep()
	l.open = add("Open Switchboard", "Open Switchboard (starts it when it is not running)", nil)
	l.titles[l.open] = "Open Switchboard"
	l.quitHub = add("Quit Switchboard", "Stop Switchboard: running turns are cancelled, agents stopped", nil)
	l.quitHub.Disable() // until a hub answers
	l.quitTray = add("Quit tray", "Remove this icon (Switchboard keeps running)", nil)
	return l
}

func (l *layout) setTitleLocked(it item, title string) {
	if l.titles[it] != title {
		l.titles[it] = title
		it.SetTitle(title)
	}
}

func setVisible(it item, was *bool, now bool) {
	if *was == now {
		return
	}
	*was = now
	if now {
		it.Show()
	} else {
		it.Hide()
	}
}

// show lays m out. A permission or turn that is still there keeps its
// slot; new ones take free slots in m's order.
func (l *layout) show(m Menu) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if l.connected != m.Connected {
		if m.Connected {
			l.quitHub.Enable()
		} else {
			l.quitHub.Disable()
		}
	}
	l.connected = m.Connected
	l.setTitleLocked(l.status, m.Status)
	// Open starts the app when no hub runs (Watcher.Open): say so.
	if m.NotRunning {
		l.setTitleLocked(l.open, "Start Switchboard")
	} else {
		l.setTitleLocked(l.open, "Open Switchboard")
	}

	// Permissions, then turns: keep slots, fill free ones.
	permStates := make([]*slotState[PermissionItem], len(l.perms))
	for i := range l.perms {
		permStates[i] = &l.perms[i].slotState
	}
	overflow := assignSlots(permStates, m.Permissions, func(p PermissionItem) string { return p.ID }, now)
	for i := range l.perms {
		s := &l.perms[i]
		p := s.shown
		if p.ID != "" {
			l.setTitleLocked(s.parent, p.Title)
		}
		for j, d := range s.details {
			if j < len(p.Details) {
				l.setTitleLocked(d, p.Details[j])
			}
			setVisible(d, &s.detailShown[j], j < len(p.Details))
		}
		setVisible(s.approve, &s.visible[1], p.Approve != nil)
		setVisible(s.deny, &s.visible[2], p.Deny != nil)
		setVisible(s.always, &s.visible[3], p.Always != nil)
		setVisible(s.rememberAllow, &s.visible[4], p.RememberAllow != nil)
		setVisible(s.rememberDeny, &s.visible[5], p.RememberDeny != nil)
		setVisible(s.parent, &s.visible[0], p.ID != "")
	}
	if overflow > 0 {
		l.setTitleLocked(l.morePerms, plural(overflow, "more approval", "more approvals")+" waiting")
	}
	setVisible(l.morePerms, &l.shownMore[0], overflow > 0)

	turnStates := make([]*slotState[TurnItem], len(l.turns))
	for i := range l.turns {
		turnStates[i] = &l.turns[i].slotState
	}
	overflow = assignSlots(turnStates, m.Turns, func(t TurnItem) string { return t.TurnID }, now)
	for i := range l.turns {
		s := &l.turns[i]
		if s.shown.TurnID != "" {
			l.setTitleLocked(s.parent, s.shown.Title)
		}
		setVisible(s.parent, &s.visible, s.shown.TurnID != "")
	}
	if overflow > 0 {
		l.setTitleLocked(l.moreTurns, plural(overflow, "more agent", "more agents")+" working")
	}
	setVisible(l.moreTurns, &l.shownMore[1], overflow > 0)
}

// Which entry of a slot was clicked.
const (
	clickApprove = iota
	clickDeny
	clickAlways
	clickRememberAllow
	clickRememberDeny
)

// clickPermission is the action of a permission slot's entry, ActNone when
// the slot is empty, lacks that choice, or changed within reassignGrace.
func (l *layout) clickPermission(slot, which int) Action {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.perms[slot]
	if s.shown.ID == "" || l.now().Sub(s.since) < reassignGrace {
		return Action{}
	}
	d := map[int]*hub.Decision{clickApprove: s.shown.Approve, clickDeny: s.shown.Deny, clickAlways: s.shown.Always,
		clickRememberAllow: s.shown.RememberAllow, clickRememberDeny: s.shown.RememberDeny}[which]
	if d == nil {
		return Action{}
	}
	return Action{Kind: ActDecide, Permission: s.shown.ID, Decision: *d}
}

// clickOpenPermission is the action of a permission slot's Open thread
// entry: show the thread that asks (ActNone when the slot is empty).
// Opening decides nothing, so no grace applies.
func (l *layout) clickOpenPermission(slot int) Action {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.perms[slot].shown.ThreadID; t != "" {
		return Action{Kind: ActOpen, Thread: t}
	}
	return Action{}
}

// clickOpenTurn is the action of a turn slot's Open thread entry.
func (l *layout) clickOpenTurn(slot int) Action {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.turns[slot].shown.ThreadID; t != "" {
		return Action{Kind: ActOpen, Thread: t}
	}
	return Action{}
}

// clickCancel is the action of a turn slot's Cancel entry.
func (l *layout) clickCancel(slot int) Action {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.turns[slot]
	if s.shown.TurnID == "" || l.now().Sub(s.since) < reassignGrace {
		return Action{}
	}
	return Action{Kind: ActCancel, Turn: s.shown.TurnID}
}
