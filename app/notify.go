package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/hub"
)

// Desktop notifications: one with Approve, Deny and "Always allow here"
// for each pending permission (raised again, critical, when it is
// escalated), one for each question an agent asks (a click opens the
// window on its thread), one for a completed turn while the window is not
// focused, one for an error (a failed turn, a config file not applied),
// one per budget warning or overrun. The sender is Wails' notification
// service in the app (notify_wails.go) and a recorder in tests.
//
// Each reason has its switch (notifications.permission, .question,
// .turnCompleted, .error, .budget; under notifications.enabled), read
// live from the config at each event. The rule of the window: nothing is
// notified about the thread the window shows while it has the focus (the
// user is looking at it; the window reports both through
// "window:focus" and "window:thread", app/desktop.go); a completed turn
// is not notified while the window has the focus at all, as before.

// Notification action ids (the categories that carry them on macOS and
// Windows are in notify_wails.go).
const (
	actionApprove = "approve"
	actionDeny    = "deny"
	// actionRemember approves and remembers for the thread: the hub adds a
	// rule allowing the same request in this thread from now on.
	actionRemember = "remember-thread"
	// actionDefault is a click on the notification itself (Wails'
	// DEFAULT_ACTION): open the window on what it is about.
	actionDefault = "DEFAULT_ACTION"
)

// notifyCaller is who answers from a notification: decisions are recorded
// as decidedBy "notification", through the same single-use path as any.
var notifyCaller = hub.Caller{ClientID: "window", All: true, Surface: hub.SurfaceNotification}

// notification is one desktop notification. Title and Body are plain
// text: a sender that speaks markup (D-Bus) escapes them.
type notification struct {
	ID    string // "perm:<permission id>" or "turn:<thread id>/<turn id>"
	Title string
	Body  string
	// Approve offers Approve, Deny and "Always allow here"
	// (notifyCategoryPermission): only for a permission whose whole
	// request is in Body. Otherwise a click on the notification opens the
	// window on it (its default action).
	Approve bool
	// Once leaves "Always allow here" out of Approve's choices: the hub
	// refuses to remember the request (hub.Rememberable).
	Once     bool
	ThreadID string
	// Critical raises it with critical urgency (an escalated permission:
	// still pending after permissions.escalateAfter), replacing the
	// notification of the same ID.
	Critical bool
	// Choices are a single-choice question's answers, each a button whose
	// action is actionAnswer + its index (D-Bus; the Wails notifications
	// of macOS and Windows have fixed categories and show none).
	Choices []string
}

// notifySender shows notifications.
type notifySender interface {
	Send(n notification) error
	// Remove withdraws a notification still shown (best effort).
	Remove(id string)
}

// notifier turns hub events into desktop notifications and answers into
// decisions.
type notifier struct {
	svc     hub.Service
	send    notifySender
	config  func() config.Config // the live config
	focused atomic.Bool          // the window has the focus
	viewing atomic.Value         // string: the thread the window shows ("" for none)
	show    func(kind, id, threadID string)
	log     *slog.Logger
	handled atomic.Int64 // the seq of the last event handled (for tests)
	// subscribed counts the subscriptions run has made (for tests: the
	// notifier hears live events once it is 1).
	subscribed atomic.Int64

	mu     sync.Mutex
	agents map[string]string          // agent id → name
	tools  map[string]json.RawMessage // threadID/toolCallId → the latest tool_call object
	shown  map[string]bool            // permission ids notified and not resolved
	// escalated are the permission ids notified again as escalated.
	escalated map[string]bool
	// approvable are the permission ids notified with Approve and Deny,
	// true when "Always allow here" was offered too: an answer for any
	// other, or a remember not offered, is refused.
	approvable map[string]bool
	// asked are the elicitation ids notified and not resolved.
	asked map[string]bool
	// askedThread are the notified elicitations' threads, for a click.
	askedThread map[string]string
	// choices are the notified questions answered with buttons (a single
	// choice, notify_question.go): what each button answers.
	choices map[string]questionChoices
}

// looking reports whether the user is looking at the thread: the window
// has the focus and shows it.
func (n *notifier) looking(threadID string) bool {
	v, _ := n.viewing.Load().(string)
	return threadID != "" && n.focused.Load() && v == threadID
}

func newNotifier(svc hub.Service, send notifySender, cfg func() config.Config, show func(kind, id, threadID string), log *slog.Logger) *notifier {
	return &notifier{
		svc: svc, send: send, config: cfg, show: show, log: log,
		agents: map[string]string{}, tools: map[string]json.RawMessage{}, shown: map[string]bool{},
		approvable: map[string]bool{}, escalated: map[string]bool{}, asked: map[string]bool{},
		askedThread: map[string]string{}, choices: map[string]questionChoices{},
	}
}

// run notifies of live events until ctx is done. A subscriber that falls
// behind is resubscribed live; permissions still pending are notified again
// from ListPermissions so none is missed.
func (n *notifier) run(ctx context.Context) {
	for ctx.Err() == nil {
		sub, err := n.svc.Subscribe(ctx, notifyCaller, "", -1)
		if err != nil {
			n.log.Warn("notifications: subscribe", "err", err)
			return
		}
		n.subscribed.Add(1)
		n.notifyPending(ctx)
		for e := range sub.Events() {
			n.handle(ctx, e)
			n.handled.Store(e.Seq)
		}
		sub.Close()
	}
}

// notifyPending notifies of the pending permissions not yet notified.
func (n *notifier) notifyPending(ctx context.Context) {
	ps, err := n.svc.ListPermissions(ctx, notifyCaller, hub.PermissionPending)
	if err != nil {
		return
	}
	for _, p := range ps {
		n.permission(ctx, p)
	}
	page, err := n.svc.QueryElicitations(ctx, notifyCaller, hub.ElicitationQuery{Status: hub.ElicitationPending})
	if err != nil {
		return
	}
	for _, el := range page.Elicitations {
		n.question(ctx, el)
	}
}

func (n *notifier) handle(ctx context.Context, e hub.Event) {
	switch e.Type {
	case hub.EventToolCall, hub.EventToolCallUpdate:
		var v struct {
			ToolCall json.RawMessage `json:"toolCall"`
		}
		if json.Unmarshal(e.Payload, &v) == nil {
			n.rememberTool(e.ThreadID, v.ToolCall)
		}
	case hub.EventPermissionRequired:
		var v struct{ Permission hub.Permission }
		if json.Unmarshal(e.Payload, &v) == nil {
			n.permission(ctx, v.Permission)
		}
	case hub.EventPermissionEscalated:
		var v struct{ Permission hub.Permission }
		if json.Unmarshal(e.Payload, &v) == nil {
			if v.Permission.EscalatedAt == nil {
				v.Permission.EscalatedAt = &e.At
			}
			n.permission(ctx, v.Permission)
		}
	case hub.EventPermissionResolved:
		var v struct{ Permission hub.Permission }
		if json.Unmarshal(e.Payload, &v) == nil {
			n.mu.Lock()
			was := n.shown[v.Permission.ID]
			delete(n.shown, v.Permission.ID)
			delete(n.escalated, v.Permission.ID)
			delete(n.approvable, v.Permission.ID)
			n.mu.Unlock()
			if was {
				n.send.Remove("perm:" + v.Permission.ID)
			}
		}
	case hub.EventElicitationRequired:
		var v struct{ Elicitation hub.Elicitation }
		if json.Unmarshal(e.Payload, &v) == nil {
			n.question(ctx, v.Elicitation)
		}
	case hub.EventElicitationResolved:
		var v struct{ Elicitation hub.Elicitation }
		if json.Unmarshal(e.Payload, &v) == nil {
			n.mu.Lock()
			was := n.asked[v.Elicitation.ID]
			delete(n.asked, v.Elicitation.ID)
			delete(n.askedThread, v.Elicitation.ID)
			delete(n.choices, v.Elicitation.ID)
			n.mu.Unlock()
			if was {
				n.send.Remove("ask:" + v.Elicitation.ID)
			}
		}
	case hub.EventConfigError:
		var v struct{ File, Message string }
		if json.Unmarshal(e.Payload, &v) != nil {
			return
		}
		if v.Message == "" {
			n.send.Remove("config")
			return
		}
		if c := n.config().Notifications; c.Enabled && c.Error {
			n.deliver(notification{ID: "config", Title: "Switchboard: config file not applied", Body: clip(v.Message, 300)})
		}
	case hub.EventBudgetWarning, hub.EventBudgetExceeded:
		n.budget(e) // notify_budget.go
	case hub.EventTurnCompleted:
		c := n.config().Notifications
		var v struct{ Turn hub.Turn }
		if !c.Enabled || json.Unmarshal(e.Payload, &v) != nil || v.Turn.Internal {
			return
		}
		// A failed turn is an error (notifications.error): not for the
		// thread the user is looking at; any other end is a completed
		// turn (notifications.turnCompleted): not while the window has
		// the focus.
		if v.Turn.Status == hub.TurnFailed {
			if !c.Error || n.looking(e.ThreadID) {
				return
			}
		} else if !c.TurnCompleted || n.focused.Load() {
			return
		}
		title := "Turn " + v.Turn.Status
		th, err := n.svc.GetThread(ctx, notifyCaller, e.ThreadID)
		if err == nil {
			title = n.agentName(ctx, th.Agent) + ": turn " + v.Turn.Status
			if th.Title != "" {
				title += " — " + th.Title
			}
		}
		body := v.Turn.Output
		if v.Turn.Error != "" {
			body = v.Turn.Error
		}
		n.deliver(notification{ID: "turn:" + e.ThreadID + "/" + v.Turn.ID, Title: title, Body: clip(body, 200), ThreadID: e.ThreadID})
	}
}

// permission notifies of p once, and once more when it is escalated
// (EscalatedAt set: critical, replacing the first): with Approve, Deny and
// "Always allow here" when its whole request fits the notification
// (permissionBody), else to be opened.
func (n *notifier) permission(ctx context.Context, p hub.Permission) {
	if c := n.config().Notifications; p.Status != hub.PermissionPending || !c.Enabled || !c.Permission || n.looking(p.ThreadID) {
		return
	}
	escalated := p.EscalatedAt != nil
	n.mu.Lock()
	if n.shown[p.ID] && (!escalated || n.escalated[p.ID]) {
		n.mu.Unlock()
		return
	}
	n.shown[p.ID] = true
	if escalated {
		n.escalated[p.ID] = true
	}
	n.mu.Unlock()
	agent := "Agent"
	if th, err := n.svc.GetThread(ctx, notifyCaller, p.ThreadID); err == nil {
		agent = n.agentName(ctx, th.Agent)
	}
	if p.Described() {
		n.described(p, agent, escalated)
		return
	}
	title, details := toolCallText(p.ToolCall)
	if details == "" {
		// The request often carries only the id and title: the tool_call
		// event before it has the command or the paths.
		var id struct {
			ToolCallID string `json:"toolCallId"`
		}
		json.Unmarshal(p.ToolCall, &id)
		n.mu.Lock()
		prev := n.tools[p.ThreadID+"/"+id.ToolCallID]
		n.mu.Unlock()
		if prev == nil {
			prev = n.storedTool(ctx, p.ThreadID, p.TurnID, id.ToolCallID)
		}
		if t2, d2 := toolCallText(prev); d2 != "" {
			details = d2
			if title == "" {
				title = t2
			}
		}
	}
	if w := p.Request.Warnings(); len(w) > 0 && details != "" {
		details += "\n" + strings.Join(w, "\n") // the hub's warnings, in the body's bounds
	}
	body, whole := permissionBody(title, details)
	if title == "" {
		title = "wants to use a tool"
	}
	// What the notification shown now offers (an escalated one replaces
	// the first) is what an answer may choose.
	n.mu.Lock()
	if whole {
		n.approvable[p.ID] = true
	} else {
		delete(n.approvable, p.ID)
	}
	n.mu.Unlock()
	summary := agent + ": " + clip(title, 80)
	if escalated {
		summary = "Still waiting — " + summary
	}
	n.deliver(notification{
		ID: "perm:" + p.ID, Title: summary, Body: body,
		Approve: whole, ThreadID: p.ThreadID, Critical: escalated,
	})
}

// Bounds of a permission notification's body that notification servers
// show whole (they cut or fold longer ones).
const (
	notifyBodyMax   = 240 // runes
	notifyBodyLines = 6
)

// permissionBody is a permission notification's body, the tool call's
// title then what it touches (its command, else its paths), and whether
// that is the whole request, readable: both parts present, within the
// body's bounds, and only printable text (no control or format
// characters such as bidi overrides, which can make a command read as
// another). Only then is Approve offered; otherwise the body is cut and
// says to open the card.
func permissionBody(title, details string) (body string, whole bool) {
	full := strings.TrimSpace(strings.TrimSpace(title) + "\n" + strings.TrimSpace(details))
	whole = strings.TrimSpace(title) != "" && strings.TrimSpace(details) != "" &&
		utf8.RuneCountInString(full) <= notifyBodyMax &&
		strings.Count(full, "\n") < notifyBodyLines && printable(full)
	if whole {
		return full, true
	}
	if full == "" {
		return "Open Switchboard to see the request.", false
	}
	lines := strings.SplitN(full, "\n", notifyBodyLines)
	if len(lines) == notifyBodyLines {
		lines[notifyBodyLines-1] = "…"
	}
	short := strings.Map(func(r rune) rune {
		if r == '\n' || unicode.IsGraphic(r) {
			return r
		}
		return '\uFFFD'
	}, clip(strings.Join(lines, "\n"), notifyBodyMax-40))
	return short + "\nNot all of it fits here: open it in Switchboard to decide.", false
}

// printable reports whether s is only graphic characters, spaces and
// newlines.
func printable(s string) bool {
	for _, r := range s {
		if r != '\n' && r != ' ' && !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

func (n *notifier) deliver(x notification) {
	if err := n.send.Send(x); err != nil {
		n.log.Warn("notification not shown", "id", x.ID, "err", err)
	}
}

// respond handles a click on notification id: Approve, Deny or "Always
// allow here" (approved with remember "thread": the hub adds a rule
// allowing the same request in this thread) decides the permission
// (decidedBy "notification"; CONFLICT when it was decided meanwhile,
// which is logged and otherwise ignored) if its notification offered
// them; a click on the notification itself opens the window on its
// permission or thread.
func (n *notifier) respond(ctx context.Context, id, action string) {
	kind, target, ok := strings.Cut(id, ":")
	if !ok {
		return
	}
	switch {
	case kind == "perm" && (action == actionApprove || action == actionDeny || action == actionRemember):
		n.mu.Lock()
		_, offered := n.approvable[target]
		n.mu.Unlock()
		if !offered {
			n.log.Warn("an answer to a notification that offered none; ignored", "permission", target, "action", action)
			return
		}
		d := hub.Decision{Outcome: hub.PermissionApproved}
		switch action {
		case actionDeny:
			d.Outcome = hub.PermissionDeclined
		case actionRemember:
			d.Remember = hub.RememberThread
		}
		if action == actionRemember && !n.rememberOffered(target) {
			n.log.Warn("an answer to a notification that offered no remember; ignored", "permission", target)
			return
		}
		if _, err := n.svc.DecidePermission(ctx, notifyCaller, target, d); err != nil {
			n.log.Info("decision from a notification refused", "permission", target, "code", hub.ErrorCode(err))
		}
	case action == actionDefault && kind == "perm":
		n.show("permission", target, "")
	case kind == "ask" && strings.HasPrefix(action, actionAnswer):
		n.answer(ctx, target, strings.TrimPrefix(action, actionAnswer))
	case action == actionDefault && kind == "ask":
		n.mu.Lock()
		thread := n.askedThread[target]
		n.mu.Unlock()
		n.show("thread", "", thread)
	case action == actionDefault && kind == "turn":
		thread, turn, _ := strings.Cut(target, "/")
		n.show("turn", turn, thread)
	}
}

func (n *notifier) rememberTool(threadID string, tc json.RawMessage) {
	var id struct {
		ToolCallID string `json:"toolCallId"`
	}
	if json.Unmarshal(tc, &id) != nil || id.ToolCallID == "" {
		return
	}
	key := threadID + "/" + id.ToolCallID
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, d := toolCallText(tc); d == "" && n.tools[key] != nil {
		return // an update without details keeps the call's
	}
	if len(n.tools) > 1024 {
		clear(n.tools) // a bound: only recent calls matter
	}
	n.tools[key] = tc
}

// storedTool finds the tool call in the turn's stored events, for a
// permission asked before the notifier subscribed (at start-up, or after
// it fell behind).
func (n *notifier) storedTool(ctx context.Context, threadID, turnID, toolCallID string) json.RawMessage {
	if toolCallID == "" {
		return nil
	}
	hist, err := n.svc.History(ctx, notifyCaller, threadID, true, false)
	if err != nil {
		return nil
	}
	var found json.RawMessage
	for _, t := range hist {
		if t.ID != turnID {
			continue
		}
		for _, e := range t.Events {
			if e.Type != hub.EventToolCall && e.Type != hub.EventToolCallUpdate {
				continue
			}
			var v struct {
				ToolCall json.RawMessage `json:"toolCall"`
			}
			var id struct {
				ToolCallID string `json:"toolCallId"`
			}
			if json.Unmarshal(e.Payload, &v) != nil || json.Unmarshal(v.ToolCall, &id) != nil || id.ToolCallID != toolCallID {
				continue
			}
			if _, d := toolCallText(v.ToolCall); d != "" {
				found = v.ToolCall
			}
		}
	}
	return found
}

func (n *notifier) agentName(ctx context.Context, id string) string {
	n.mu.Lock()
	name, ok := n.agents[id]
	n.mu.Unlock()
	if ok {
		return name
	}
	name = id
	if as, err := n.svc.ListAgents(ctx); err == nil {
		n.mu.Lock()
		for _, a := range as {
			n.agents[a.ID] = a.Name
			if a.ID == id && a.Name != "" {
				name = a.Name
			}
		}
		n.mu.Unlock()
	}
	return name
}

// toolCallText is an ACP tool call's title and what it would touch: the
// command it runs, else the paths it reads or writes.
func toolCallText(tc json.RawMessage) (title, details string) {
	var v struct {
		Title    string `json:"title"`
		RawInput struct {
			Command any      `json:"command"`
			Cmd     any      `json:"cmd"`
			Path    string   `json:"path"`
			File    string   `json:"file_path"`
			Paths   []string `json:"paths"`
		} `json:"rawInput"`
		Locations []struct {
			Path string `json:"path"`
		} `json:"locations"`
		Content []struct {
			Path string `json:"path"`
		} `json:"content"`
	}
	if len(tc) == 0 || json.Unmarshal(tc, &v) != nil {
		return "", ""
	}
	for _, c := range []any{v.RawInput.Command, v.RawInput.Cmd} {
		switch c := c.(type) {
		case string:
			if c != "" {
				return v.Title, c
			}
		case []any:
			var parts []string
			for _, p := range c {
				parts = append(parts, fmt.Sprint(p))
			}
			if len(parts) > 0 {
				return v.Title, strings.Join(parts, " ")
			}
		}
	}
	var paths []string
	add := func(p string) {
		if p != "" && !containsString(paths, p) {
			paths = append(paths, p)
		}
	}
	for _, l := range v.Locations {
		add(l.Path)
	}
	for _, c := range v.Content {
		add(c.Path)
	}
	add(v.RawInput.Path)
	add(v.RawInput.File)
	for _, p := range v.RawInput.Paths {
		add(p)
	}
	return v.Title, strings.Join(paths, "\n")
}

func containsString(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
