package tray

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// IconState is which of the five icons the tray shows.
type IconState int

const (
	IconIdle     IconState = iota // connected, nothing running
	IconWorking                   // a turn is running
	IconNeedsYou                  // a permission is pending
	IconTrouble                   // the hub is unreachable (or refuses the tray)
	// IconEscalated: a pending permission was escalated (still pending
	// after permissions.escalateAfter: permission_escalated, escalatedAt).
	IconEscalated
)

func (s IconState) String() string {
	switch s {
	case IconIdle:
		return "idle"
	case IconWorking:
		return "working"
	case IconNeedsYou:
		return "needs you"
	case IconTrouble:
		return "trouble"
	case IconEscalated:
		return "escalated"
	}
	return fmt.Sprintf("IconState(%d)", int(s))
}

// Menu is everything the tray shows, computed by Model.Menu. It is a plain
// value: two menus are equal when the tray looks the same.
type Menu struct {
	Icon        IconState
	Title       string // the label beside the icon: the number of pending permissions and questions ("3!" when one is escalated), "" when none
	Tooltip     string
	Status      string // the first, disabled line of the menu
	Permissions []PermissionItem
	Turns       []TurnItem
	Connected   bool // a hub answers: its actions can be used
	// NotRunning: no hub runs at all (no hub.json, or its process is
	// gone), as for a tray started at login before Switchboard: the menu
	// offers "Start Switchboard" where it offers "Open Switchboard".
	NotRunning bool
}

// PermissionItem is one pending permission's submenu, "<agent>: <what
// runs>" ("⚠ " before it once escalated): the command line or paths of
// the hub's description (hub.Permission.Summary), the tool call's title
// only when the description says no more (hub.Permission.Described) or
// for a permission stored before the hub described requests.
// A nil decision is not offered (its entry is hidden).
type PermissionItem struct {
	ID        string
	ThreadID  string // for "Open thread"
	Title     string
	Escalated bool
	// Details are the hub's description line by line (Runs, In, Sets,
	// File, the agent's words, warnings), each cut to one entry, at most
	// maxDetails: shown disabled above the choices. Only the warnings when
	// the description says no more than the title; none without one.
	Details []string
	Approve *hub.Decision // the agent's allow_once option
	Deny    *hub.Decision // reject_once, else reject_always, else outcome "declined"
	Always  *hub.Decision // the agent's allow_always option (the agent remembers, not the hub)
	// RememberAllow and RememberDeny decide with remember "thread": the
	// hub also adds a rule deciding this thread's later requests like this
	// one. RememberAllow is outcome "approved" (only when the agent offers
	// allow_once, which that selects), RememberDeny outcome "declined".
	RememberAllow *hub.Decision
	RememberDeny  *hub.Decision
}

// TurnItem is one running turn, "<agent>: <thread title>", with "Cancel".
type TurnItem struct {
	TurnID   string
	Title    string
	ThreadID string // for "Open thread"
}

// Snapshot is the hub's state when the tray (re)connects.
type Snapshot struct {
	Agents      []hub.Agent
	Threads     []hub.Thread
	Running     []hub.Turn // the running turns
	Permissions []hub.Permission
	// Questions are the agents' pending questions (elicitations): counted
	// beside the permissions; answered in the window.
	Questions []hub.Elicitation
}

// Model is the tray's state: a pure state machine from the hub's snapshot
// and events to a Menu. It does no I/O and reads no clock. It is not safe
// for concurrent use: one goroutine (the Watcher's) owns it.
type Model struct {
	connected bool
	trouble   string // why not connected
	configErr string // why the hub refused its config file, "" when it is fine
	agents    map[string]string
	threads   map[string]hub.Thread
	turns     map[string]hub.Turn        // running turns by id
	perms     map[string]hub.Permission  // pending permissions by id
	questions map[string]hub.Elicitation // pending questions by id
}

// NewModel returns a model that is not connected yet.
func NewModel() *Model {
	m := &Model{trouble: "connecting"}
	m.clear()
	return m
}

func (m *Model) clear() {
	m.agents = map[string]string{}
	m.threads = map[string]hub.Thread{}
	m.turns = map[string]hub.Turn{}
	m.perms = map[string]hub.Permission{}
	m.questions = map[string]hub.Elicitation{}
}

// Connect replaces the state with a snapshot: the tray is connected.
func (m *Model) Connect(s Snapshot) {
	m.clear()
	m.connected, m.trouble, m.configErr = true, "", ""
	for _, a := range s.Agents {
		if a.Name != "" {
			m.agents[a.ID] = a.Name
		}
	}
	for _, t := range s.Threads {
		if t.Status != hub.ThreadClosed {
			m.threads[t.ID] = t
		}
	}
	for _, t := range s.Running {
		if t.Status == "" || t.Status == hub.TurnRunning {
			m.turns[t.ID] = t
		}
	}
	for _, p := range s.Permissions {
		if p.Status == hub.PermissionPending {
			m.perms[p.ID] = p
		}
	}
	for _, q := range s.Questions {
		m.setQuestion(q)
	}
}

// setQuestion records a question: pending, it is counted; ended, it is
// dropped.
func (m *Model) setQuestion(q hub.Elicitation) {
	if q.ID == "" {
		return
	}
	if q.Status == hub.ElicitationPending {
		m.questions[q.ID] = q
	} else {
		delete(m.questions, q.ID)
	}
}

// ReasonNotRunning is the Disconnect reason for "no hub runs at all"
// (client.ErrNoHub), which the menu shows as "Switchboard is not running".
const ReasonNotRunning = "no hub is running"

// Disconnect records that the hub cannot be reached, and why (a short
// phrase such as ReasonNotRunning or "cannot connect"). What the tray knew is dropped: it
// cannot be acted on, and the next snapshot brings it back.
func (m *Model) Disconnect(reason string) {
	m.clear()
	m.connected, m.trouble, m.configErr = false, reason, ""
}

// Apply updates the model with one event. Events are state-setting, so
// applying one twice, or an old one after a newer snapshot, converges.
// Unknown types are ignored. The payload fields the model reads
// (permission, turn, thread, message) are decoded here, each on its own:
// a field of another shape than expected is ignored as if absent, so one
// odd event never stops the tray.
func (m *Model) Apply(ev hub.Event) {
	switch ev.Type {
	case hub.EventConfigError:
		var msg string // "" once the file is valid again
		decodeField(ev, "message", &msg)
		m.configErr = msg
	case hub.EventTurnStarted:
		if ev.TurnID != "" {
			m.turns[ev.TurnID] = hub.Turn{ID: ev.TurnID, ThreadID: ev.ThreadID, Status: hub.TurnRunning, StartedAt: ev.At}
		}
	case hub.EventTurnCompleted:
		id := ev.TurnID
		var t hub.Turn
		if decodeField(ev, "turn", &t) && t.ID != "" {
			id = t.ID
		}
		delete(m.turns, id)
		for pid, p := range m.perms { // the hub cancels them with the turn
			if p.TurnID == id {
				delete(m.perms, pid)
			}
		}
		for qid, q := range m.questions {
			if q.TurnID == id {
				delete(m.questions, qid)
			}
		}
	case hub.EventElicitationRequired, hub.EventElicitationResolved:
		var q hub.Elicitation
		if decodeField(ev, "elicitation", &q) {
			m.setQuestion(q)
		}
	case hub.EventPermissionRequired, hub.EventPermissionResolved, hub.EventPermissionEscalated:
		var p hub.Permission
		if decodeField(ev, "permission", &p) {
			m.SetPermission(p)
		}
	case hub.EventThreadUpdated:
		var t hub.Thread
		if decodeField(ev, "thread", &t) {
			m.SetThread(t)
		}
	}
}

// decodeField decodes the payload field name of ev into v. It reports
// false, leaving v as it was, when the payload has no such field, or one
// of another shape.
func decodeField(ev hub.Event, name string, v any) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(ev.Payload, &fields) != nil {
		return false
	}
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// SetPermission records a permission: pending, it is shown; decided, it
// goes. Once escalated it stays so: an older copy of it without
// escalatedAt (a permission_required applied after a newer snapshot)
// keeps the escalation.
func (m *Model) SetPermission(p hub.Permission) {
	if p.ID == "" {
		return
	}
	if p.Status == hub.PermissionPending {
		if old, ok := m.perms[p.ID]; ok && p.EscalatedAt == nil {
			p.EscalatedAt = old.EscalatedAt
		}
		m.perms[p.ID] = p
	} else {
		delete(m.perms, p.ID)
	}
}

// SetThread records a thread's agent and title. A closed (deleted) thread
// takes its turns and permissions with it.
func (m *Model) SetThread(t hub.Thread) {
	if t.Status != hub.ThreadClosed {
		m.threads[t.ID] = t
		return
	}
	delete(m.threads, t.ID)
	for id, tu := range m.turns {
		if tu.ThreadID == t.ID {
			delete(m.turns, id)
		}
	}
	for id, p := range m.perms {
		if p.ThreadID == t.ID {
			delete(m.perms, id)
		}
	}
}

// UnknownThreads lists the threads that running turns or pending
// permissions refer to but the model has no title for, sorted.
func (m *Model) UnknownThreads() []string {
	var ids []string
	add := func(id string) {
		if _, ok := m.threads[id]; !ok && id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, t := range m.turns {
		add(t.ThreadID)
	}
	for _, p := range m.perms {
		add(p.ThreadID)
	}
	slices.Sort(ids)
	return ids
}

// maxTitle caps a menu entry's length, in runes.
const maxTitle = 60

// Menu computes what the tray shows.
func (m *Model) Menu() Menu {
	if !m.connected && m.trouble == ReasonNotRunning {
		return Menu{
			Icon:       IconTrouble,
			Tooltip:    "Switchboard is not running",
			Status:     "Switchboard is not running",
			NotRunning: true,
		}
	}
	if !m.connected {
		reason := m.trouble
		if reason == "" {
			reason = "unknown error"
		}
		return Menu{
			Icon:    IconTrouble,
			Tooltip: "Switchboard: hub unreachable (" + reason + ")",
			Status:  "Hub unreachable: " + reason,
		}
	}
	menu := Menu{Connected: true}
	perms := make([]hub.Permission, 0, len(m.perms))
	for _, p := range m.perms {
		perms = append(perms, p)
	}
	slices.SortFunc(perms, func(a, b hub.Permission) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	escalated := 0
	for _, p := range perms {
		what, lines := toolTitle(p), p.Request.Warnings()
		if p.Described() {
			what, lines = cmp.Or(p.Summary(), what), details(&p)
		}
		title := m.agentLabel(p.ThreadID) + ": " + what
		if p.EscalatedAt != nil {
			escalated++
			title = "⚠ " + title
		}
		item := PermissionItem{
			ID:        p.ID,
			ThreadID:  p.ThreadID,
			Title:     truncate(title),
			Escalated: p.EscalatedAt != nil,
			Details:   lines,
			Approve:   optionOf(p, "allow_once"),
			Deny:      denyOf(p),
		}
		// Git's own settings and spending limits are asked each time:
		// neither the hub nor the agent may remember the answer.
		if hub.Rememberable(p.Kind) {
			item.Always = optionOf(p, "allow_always")
			item.RememberDeny = &hub.Decision{Outcome: hub.PermissionDeclined, Remember: hub.RememberThread}
			if item.Approve != nil {
				item.RememberAllow = &hub.Decision{Outcome: hub.PermissionApproved, Remember: hub.RememberThread}
			}
		}
		menu.Permissions = append(menu.Permissions, item)
	}
	turns := make([]hub.Turn, 0, len(m.turns))
	for _, t := range m.turns {
		turns = append(turns, t)
	}
	slices.SortFunc(turns, func(a, b hub.Turn) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.ID, b.ID))
	})
	for _, t := range turns {
		title := "working"
		if th, ok := m.threads[t.ThreadID]; ok && th.Title != "" {
			title = th.Title
		}
		menu.Turns = append(menu.Turns, TurnItem{TurnID: t.ID, ThreadID: t.ThreadID, Title: truncate(m.agentLabel(t.ThreadID) + ": " + title)})
	}

	var parts []string
	if n := len(turns); n > 0 {
		parts = append(parts, plural(n, "agent", "agents")+" working")
	}
	if n := len(perms); n > 0 {
		parts = append(parts, plural(n, "approval", "approvals")+" waiting")
	}
	if n := len(m.questions); n > 0 {
		parts = append(parts, plural(n, "question", "questions")+" waiting (answer in the window)")
	}
	if n := len(perms) + len(m.questions); n > 0 {
		menu.Title = fmt.Sprint(n)
	}
	if escalated > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting too long: needs you", escalated))
		menu.Title += "!"
	}
	switch {
	case escalated > 0:
		menu.Icon = IconEscalated
	case len(perms) > 0 || len(m.questions) > 0:
		menu.Icon = IconNeedsYou
	case m.configErr != "":
		menu.Icon = IconTrouble
	case len(turns) > 0:
		menu.Icon = IconWorking
	default:
		menu.Icon = IconIdle
	}
	if m.configErr != "" {
		parts = append(parts, "config file not applied")
	}
	if len(parts) == 0 {
		menu.Status = "No agents working"
	} else {
		menu.Status = strings.Join(parts, " · ")
	}
	menu.Tooltip = "Switchboard: " + menu.Status
	if m.configErr != "" {
		menu.Tooltip += "\n" + m.configErr
	}
	return menu
}

// agentLabel names the agent of a thread: its display name, else its id,
// else "Agent".
func (m *Model) agentLabel(threadID string) string {
	th, ok := m.threads[threadID]
	if !ok || th.Agent == "" {
		return "Agent"
	}
	if name := m.agents[th.Agent]; name != "" {
		return name
	}
	return th.Agent
}

// toolTitle is the title of p's tool call, else its kind, else "a tool
// call".
func toolTitle(p hub.Permission) string {
	var tc struct {
		Title string `json:"title"`
		Kind  string `json:"kind"`
	}
	_ = json.Unmarshal(p.ToolCall, &tc)
	return cmp.Or(tc.Title, tc.Kind, "a tool call")
}

// maxDetails caps a permission's detail entries; maxDetail one's length,
// in runes.
const (
	maxDetails = 6
	maxDetail  = 80
)

// details are p's lines for the submenu (PermissionItem.Details,
// hub.Permission.Lines): the warnings kept when they do not all fit, the
// rest said to be in the window.
func details(p *hub.Permission) []string {
	lines := p.Lines()
	if len(lines) > maxDetails {
		warn := p.Request.Warnings()
		keep := max(maxDetails-1-len(warn), 1)
		lines = append(append(lines[:keep:keep], "… more in Switchboard"), warn...)
		lines = lines[:min(len(lines), maxDetails)]
	}
	for i, l := range lines {
		lines[i] = cut(l, maxDetail)
	}
	return lines
}

// optionOf is the decision selecting p's first option of that kind, nil if
// it offers none.
func optionOf(p hub.Permission, kind string) *hub.Decision {
	for _, o := range p.Options {
		if o.Kind == kind && o.OptionID != "" {
			return &hub.Decision{OptionID: o.OptionID}
		}
	}
	return nil
}

// denyOf is Deny: the agent's reject_once option, else its reject_always,
// else the outcome "declined" (the hub then answers the agent as it does
// for an expired request).
func denyOf(p hub.Permission) *hub.Decision {
	if d := optionOf(p, "reject_once"); d != nil {
		return d
	}
	if d := optionOf(p, "reject_always"); d != nil {
		return d
	}
	return &hub.Decision{Outcome: hub.PermissionDeclined}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func truncate(s string) string { return cut(s, maxTitle) }

// cut makes s one line of at most n runes, marking a cut with "…".
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ") // one line
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
