package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/notify"
	"github.com/switchboard-hub/switchboard/hub"
)

// Desktop notifications: one with Approve, Deny and "Always allow here"
// for each pending permission (raised again, critical, when it is
// escalated), one for each question an agent asks (a click opens the
// window on its thread), one for a completed turn while the window is not
// focused, one for an error (a failed turn, a config file not applied),
// one per budget warning or overrun. What each says and offers, and the
// decision each action makes, is app/notify's; the notifier here decides
// when to notify and keeps what was offered. The sender is D-Bus on Linux
// (notify_dbus.go), Wails' notification service elsewhere
// (notify_wails.go), and a recorder in tests.
//
// Each reason has its switch (notifications.permission, .question,
// .turnCompleted, .error, .budget; under notifications.enabled), read
// live from the config at each event. The rule of the window: nothing is
// notified about the thread the window shows while it has the focus (the
// user is looking at it; the window reports both through
// "window:focus" and "window:thread", app/desktop.go); a completed turn
// is not notified while the window has the focus at all, as before.

// notifyCaller is who answers from a notification: decisions are recorded
// as decidedBy "notification", through the same single-use path as any.
var notifyCaller = hub.Caller{ClientID: "window", All: true, Surface: hub.SurfaceNotification}

// notifySender shows notifications (what each says and offers is
// app/notify's).
type notifySender interface {
	Send(n notify.Notification) error
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
	// choice, notify.SingleChoice): what each button answers.
	choices map[string]notify.Choices
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
		askedThread: map[string]string{}, choices: map[string]notify.Choices{},
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
				n.send.Remove(notify.PermissionID(v.Permission.ID))
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
				n.send.Remove(notify.QuestionID(v.Elicitation.ID))
			}
		}
	case hub.EventConfigError:
		var v struct{ File, Message string }
		if json.Unmarshal(e.Payload, &v) != nil {
			return
		}
		if v.Message == "" {
			n.send.Remove(notify.ConfigID)
			return
		}
		if c := n.config().Notifications; c.Enabled && c.Error {
			n.deliver(notify.ConfigError(v.Message))
		}
	case hub.EventBudgetWarning, hub.EventBudgetExceeded:
		// A budget is hub-wide: the window's thread does not hold it back.
		if c := n.config().Notifications; c.Enabled && c.Budget {
			if x, ok := notify.Budget(e); ok {
				n.deliver(x)
			}
		}
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
		var thread *hub.Thread
		agent := ""
		if th, err := n.svc.GetThread(ctx, notifyCaller, e.ThreadID); err == nil {
			thread, agent = &th, n.agentName(ctx, th.Agent)
		}
		n.deliver(notify.TurnEnded(e.ThreadID, v.Turn, thread, agent))
	}
}

// permission notifies of p once, and once more when it is escalated
// (EscalatedAt set: critical, replacing the first), as notify.Permission
// tells it; what that notification offers (an escalated one replaces the
// first) is what an answer may choose.
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
	x := notify.Permission(p, agent, func(toolCallID string) json.RawMessage {
		n.mu.Lock()
		prev := n.tools[p.ThreadID+"/"+toolCallID]
		n.mu.Unlock()
		if prev == nil {
			prev = n.storedTool(ctx, p.ThreadID, p.TurnID, toolCallID)
		}
		return prev
	})
	n.mu.Lock()
	if x.Approve {
		n.approvable[p.ID] = !x.Once
	} else {
		delete(n.approvable, p.ID)
	}
	n.mu.Unlock()
	n.deliver(x)
}

func (n *notifier) deliver(x notify.Notification) {
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
	kind, target, ok := notify.ParseID(id)
	if !ok {
		return
	}
	d, decides := notify.Decision(action)
	switch {
	case kind == notify.KindPermission && decides:
		n.mu.Lock()
		remember, offered := n.approvable[target]
		n.mu.Unlock()
		if !offered {
			n.log.Warn("an answer to a notification that offered none; ignored", "permission", target, "action", action)
			return
		}
		if d.Remember != "" && !remember {
			n.log.Warn("an answer to a notification that offered no remember; ignored", "permission", target)
			return
		}
		if _, err := n.svc.DecidePermission(ctx, notifyCaller, target, d); err != nil {
			n.log.Info("decision from a notification refused", "permission", target, "code", hub.ErrorCode(err))
		}
	case action == notify.ActionDefault && kind == notify.KindPermission:
		n.show("permission", target, "")
	case kind == notify.KindQuestion && strings.HasPrefix(action, notify.ActionAnswer):
		n.answer(ctx, target, strings.TrimPrefix(action, notify.ActionAnswer))
	case action == notify.ActionDefault && kind == notify.KindQuestion:
		n.mu.Lock()
		thread := n.askedThread[target]
		n.mu.Unlock()
		n.show("thread", "", thread)
	case action == notify.ActionDefault && kind == notify.KindTurn:
		thread, turn, _ := strings.Cut(target, "/")
		n.show("turn", turn, thread)
	}
}

func (n *notifier) rememberTool(threadID string, tc json.RawMessage) {
	id := notify.ToolCallID(tc)
	if id == "" {
		return
	}
	key := threadID + "/" + id
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, d := notify.ToolCallText(tc); d == "" && n.tools[key] != nil {
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
			if json.Unmarshal(e.Payload, &v) != nil || notify.ToolCallID(v.ToolCall) != toolCallID {
				continue
			}
			if _, d := notify.ToolCallText(v.ToolCall); d != "" {
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
