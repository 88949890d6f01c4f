package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/switchboard-hub/switchboard/hub"
)

// Runtime events the window receives (Wails EventsOn in the frontend).
const (
	// EventHubEvent carries one hub event; its data is the event's JSON
	// object, exactly the data: of the SSE stream.
	EventHubEvent = "hub:event"
	// EventHubResync says the window fell behind the hub's event stream:
	// forwarding has stopped; reload what is shown and call Subscribe again
	// with the last seq seen. Its data is the resync event's JSON object.
	EventHubResync = "hub:resync"
	// EventShowPermission asks the window to show one permission (the user
	// clicked its desktop notification). Data: {"id": "<permission id>"}.
	EventShowPermission = "window:showPermission"
	// EventShowTurn asks the window to show a completed turn in its thread
	// (the user clicked its notification). Data: {"id": "<turn id>",
	// "threadId": "<thread id>"}.
	EventShowTurn = "window:showTurn"
	// EventShowThread asks the window to show a thread (`switchboard open
	// THREAD` while the app runs). Data: {"threadId": "<thread id>"}.
	EventShowThread = "window:showThread"
	// EventMenu is a choice in the window's Thread menu, about the thread
	// the window shows. Data: {"action": "export-md" | "export-jsonl" |
	// "open-browser"} (MenuExportMarkdown, MenuExportJSONL,
	// MenuOpenInBrowser): the frontend does what the thread's buttons of
	// the same names do.
	EventMenu = "window:menu"
	// EventWindowReady goes the other way: the frontend emits it once it
	// listens for the events above. A show asked for before (a
	// `switchboard open THREAD` or a notification's click while the page
	// was still loading) is emitted again then, so none is lost. No data.
	EventWindowReady = "window:ready"
)

// The actions of EventMenu.
const (
	MenuExportMarkdown = "export-md"
	MenuExportJSONL    = "export-jsonl"
	MenuOpenInBrowser  = "open-browser"
)

// windowCaller is who the window is to the hub: it sees every client's
// threads and records its decisions as decidedBy "window". Only app sets
// this Surface, in-process: no request can claim it.
var windowCaller = hub.Caller{ClientID: "window", All: true, Surface: hub.SurfaceWindow}

// Emitter sends a runtime event to the window (Wails' EventsEmit in the
// app; a recorder in tests). Emit must not block for long: it is called
// from the forwarding goroutine, one event at a time, in order.
type Emitter interface {
	Emit(name string, data any)
}

// Bindings is the window's API: Wails binds its exported methods, and the
// generated frontend/wailsjs/go/app/Bindings.{js,d.ts} calls them. Each method
// is one call of hub.Services — the same operation, name and arguments as
// the HTTP API (docs/API.md) — with the caller
// hub.Caller{ClientID: "window", All: true, Surface: "window"}.
//
// The generated frontend/wailsjs/go/app/Bindings.d.ts is the list of
// bindings (kept current by a test); the frontend's src/lib/transport.ts
// derives its WailsBindings type from it, so `npm run check` fails when a
// method it calls changes. Capabilities the hub lacks (a nil field of
// hub.Services) answer NOT_FOUND, as the HTTP API does.
//
// A failed call rejects its promise with a string holding the JSON object
// {"code": "NOT_FOUND", "message": "…"} (formatError, the app's Wails
// ErrorFormatter): the codes and messages of the HTTP API.
//
// Subscribe starts forwarding every event with seq > after (after < 0: live
// events only) as the runtime event "hub:event", from the same fan-out as
// SSE (an event over limits.liveEventBytes cut as SSE sends it, whole in
// History); a second call replaces the first. When the window falls behind,
// "hub:resync" is sent and forwarding stops until Subscribe is called again.
type Bindings struct {
	svcs hub.Services // the hub's capabilities: a nil one answers its bindings NOT_FOUND
	emit Emitter
	log  *slog.Logger
	ctx  context.Context // ends with the app: calls and forwarding stop
	// liveEventBytes is limits.liveEventBytes as now configured: a larger
	// event is forwarded cut, as SSE sends it (nil: the default).
	liveEventBytes func() int
	// signIn makes a one-time login link to next on the hub
	// (OpenInBrowser); nil: none.
	signIn         func(next string) (string, error)
	hub.QueueCalls // the queue's bindings (issue 33): Enqueue, Queue, EditQueued, RemoveQueued, SendNext

	mu      sync.Mutex
	stopFwd func() // ends the current forwarding and waits for it; nil: none
}

// NewBindings returns the window's bindings over svcs (the same value
// hub/httpapi serves); events go to emit. Calls run under ctx, and
// forwarding stops when it is done.
func NewBindings(ctx context.Context, svcs hub.Services, emit Emitter, log *slog.Logger) *Bindings {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Bindings{svcs: svcs, emit: emit, log: log, ctx: ctx, QueueCalls: hub.QueueCalls{Ctx: ctx, Caller: windowCaller, Svc: svcs.Queue}}
}

// ListAgents is Service.ListAgents (GET /v1/agents), which may refresh
// the ACP registry in the background like the API's.
func (b *Bindings) ListAgents() ([]hub.Agent, error) {
	if b.svcs.Installer != nil {
		b.svcs.Installer.RefreshRegistry()
	}
	return b.svcs.Service.ListAgents(b.ctx)
}

// CreateThread is Service.CreateThread (POST /v1/threads).
func (b *Bindings) CreateThread(req hub.CreateThreadRequest) (hub.Thread, error) {
	return b.svcs.Service.CreateThread(b.ctx, windowCaller, req)
}

// ListThreads is Service.ListThreads (GET /v1/threads).
func (b *Bindings) ListThreads(limit int, cursor string) (hub.ThreadPage, error) {
	return b.svcs.Service.ListThreads(b.ctx, windowCaller, limit, cursor)
}

// Search is Service.Search (GET /v1/search?scope=all).
func (b *Bindings) Search(q hub.SearchQuery) (hub.SearchPage, error) {
	return b.svcs.Service.Search(b.ctx, windowCaller, q)
}

// GetThread is Service.GetThread (GET /v1/threads/{id}).
func (b *Bindings) GetThread(id string) (hub.Thread, error) {
	return b.svcs.Service.GetThread(b.ctx, windowCaller, id)
}

// RenameThread is Service.RenameThread (PATCH /v1/threads/{id}).
func (b *Bindings) RenameThread(id, title string) (hub.Thread, error) {
	return b.svcs.Service.RenameThread(b.ctx, windowCaller, id, title)
}

// DeleteThread is Service.DeleteThread (DELETE /v1/threads/{id}).
func (b *Bindings) DeleteThread(id string) error {
	return b.svcs.Service.DeleteThread(b.ctx, windowCaller, id)
}

// CompactThread is Service.CompactThread (POST /v1/threads/{id}/compact).
func (b *Bindings) CompactThread(id string) (hub.Thread, error) {
	return b.svcs.Service.CompactThread(b.ctx, windowCaller, id)
}

// StartTurn is Service.StartTurn (POST /v1/threads/{id}/turns); the
// turn's events follow as "hub:event".
func (b *Bindings) StartTurn(threadID string, in hub.TurnInput) (hub.Turn, error) {
	return b.svcs.Service.StartTurn(b.ctx, windowCaller, threadID, in)
}

// CancelTurn is Service.CancelTurn (POST /v1/turns/{id}/cancel).
func (b *Bindings) CancelTurn(turnID string) (hub.Turn, error) {
	return b.svcs.Service.CancelTurn(b.ctx, windowCaller, turnID)
}

// History is Service.History (GET /v1/threads/{id}/history).
func (b *Bindings) History(threadID string, includeEvents, includeInternal bool) ([]hub.TurnHistory, error) {
	return b.svcs.Service.History(b.ctx, windowCaller, threadID, includeEvents, includeInternal)
}

// HistoryPage is Service.HistoryPage (GET /v1/threads/{id}/history?limit&cursor).
func (b *Bindings) HistoryPage(threadID string, q hub.HistoryQuery) (hub.HistoryPage, error) {
	return b.svcs.Service.HistoryPage(b.ctx, windowCaller, threadID, q)
}

// OpenSession is Service.OpenSession: open the thread's agent session now
// (the window calls it right after creating a thread, for its pickers).
func (b *Bindings) OpenSession(threadID string) (hub.Thread, error) {
	return b.svcs.Service.OpenSession(b.ctx, windowCaller, threadID)
}

// SetMode is Service.SetMode: switch the thread's agent session mode.
func (b *Bindings) SetMode(threadID, modeID string) (hub.Thread, error) {
	return b.svcs.Service.SetMode(b.ctx, windowCaller, threadID, modeID)
}

// SetConfigOption is Service.SetConfigOption: set one of the session's
// config options (the model, for instance).
func (b *Bindings) SetConfigOption(threadID, configID, value string) (hub.Thread, error) {
	return b.svcs.Service.SetConfigOption(b.ctx, windowCaller, threadID, configID, value)
}

// ListPermissions is Service.ListPermissions (GET /v1/permissions).
func (b *Bindings) ListPermissions(status string) ([]hub.Permission, error) {
	return b.svcs.Service.ListPermissions(b.ctx, windowCaller, status)
}

// QueryPermissions is Service.QueryPermissions (GET /v1/permissions with
// the audit's filters): newest first, a page at a time.
func (b *Bindings) QueryPermissions(q hub.PermissionQuery) (hub.PermissionPage, error) {
	return b.svcs.Service.QueryPermissions(b.ctx, windowCaller, q)
}

// DecidePermission is Service.DecidePermission (POST /v1/permissions/{id}),
// recorded as decidedBy "window"; with d.Remember the answer carries the
// rule it added (and the config rule that shadows it, if any).
func (b *Bindings) DecidePermission(id string, d hub.Decision) (hub.DecisionResult, error) {
	return b.svcs.Service.DecidePermission(b.ctx, windowCaller, id, d)
}

// DecidePermissions is Service.DecidePermissions (POST
// /v1/permissions/decide), each recorded as decidedBy "window".
func (b *Bindings) DecidePermissions(batch hub.BatchDecision) (hub.BatchResult, error) {
	return b.svcs.Service.DecidePermissions(b.ctx, windowCaller, batch)
}

// ListRules is Service.ListRules (GET /v1/rules).
func (b *Bindings) ListRules() ([]hub.RememberedRule, error) {
	return b.svcs.Service.ListRules(b.ctx, windowCaller)
}

// DeleteRule is Service.DeleteRule (DELETE /v1/rules/{id}).
func (b *Bindings) DeleteRule(id string) error {
	return b.svcs.Service.DeleteRule(b.ctx, windowCaller, id)
}

// ListHosts, AddHost, RemoveHost and ConnectHost are Services.Hosts
// (/v1/hosts: docs/API.md "Hosts"); NOT_FOUND on a hub without hosts.
func (b *Bindings) ListHosts() ([]hub.Host, error) { return b.svcs.HostsOrNone().ListHosts(b.ctx) }
func (b *Bindings) AddHost(name, ssh string) (hub.Host, error) {
	return b.svcs.HostsOrNone().AddHost(b.ctx, name, ssh)
}
func (b *Bindings) RemoveHost(name string) error { return b.svcs.HostsOrNone().RemoveHost(b.ctx, name) }
func (b *Bindings) ConnectHost(name string, c hub.HostConnect) (hub.Host, error) {
	return b.svcs.HostsOrNone().ConnectHost(b.ctx, name, c)
}

// GetSettings is SettingsService.Settings (GET /v1/settings).
func (b *Bindings) GetSettings() (hub.Settings, error) {
	if b.svcs.Settings == nil {
		return hub.Settings{}, hub.ErrNoSettings
	}
	return b.svcs.Settings.Settings(b.ctx)
}

// UpdateSettings is SettingsService.UpdateSettings (PATCH /v1/settings).
func (b *Bindings) UpdateSettings(patch hub.SettingsPatch) (hub.Settings, error) {
	if b.svcs.Settings == nil {
		return hub.Settings{}, hub.ErrNoSettings
	}
	return b.svcs.Settings.UpdateSettings(b.ctx, patch)
}

// InstallAgent is AgentInstaller.InstallAgent (POST
// /v1/agents/{id}/install): progress as agent_install events.
func (b *Bindings) InstallAgent(id, version string) error {
	if b.svcs.Installer == nil {
		return hub.ErrNoInstaller
	}
	return b.svcs.Installer.InstallAgent(b.ctx, id, version)
}

// RemoveAgent is AgentInstaller.RemoveAgent (DELETE /v1/agents/{id}/install).
func (b *Bindings) RemoveAgent(id string) error {
	if b.svcs.Installer == nil {
		return hub.ErrNoInstaller
	}
	return b.svcs.Installer.RemoveAgent(b.ctx, id)
}

// InstallNode is AgentInstaller.InstallNode (POST /v1/node/install).
func (b *Bindings) InstallNode() error {
	if b.svcs.Installer == nil {
		return hub.ErrNoInstaller
	}
	return b.svcs.Installer.InstallNode(b.ctx)
}

// NodeStatus is AgentInstaller.Node (GET /v1/agents' node).
func (b *Bindings) NodeStatus() (hub.NodeStatus, error) {
	if b.svcs.Installer == nil {
		return hub.NodeStatus{}, hub.ErrNoInstaller
	}
	return b.svcs.Installer.Node(b.ctx), nil
}

// Subscribe is Service.Subscribe (GET /v1/events?after=N) forwarded as
// runtime events: "hub:event" for each event with seq > after (after < 0:
// live events only), "hub:resync" when the window fell behind (forwarding
// then stops). It replaces the forwarding a previous call started; when it
// returns, no event of the previous one will be emitted any more.
func (b *Bindings) Subscribe(after int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopFwd != nil {
		b.stopFwd()
		b.stopFwd = nil
	}
	sub, err := b.svcs.Service.Subscribe(b.ctx, windowCaller, "", after)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go b.forward(sub, done)
	b.stopFwd = func() {
		sub.Close()
		<-done
	}
	return nil
}

// stop stops forwarding events and waits until it has stopped. (Not
// exported: Wails binds every exported method.)
func (b *Bindings) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopFwd != nil {
		b.stopFwd()
		b.stopFwd = nil
	}
}

// forward emits sub's events until it closes, then closes done. It owns
// sub's receive side; whoever closes sub waits on done.
func (b *Bindings) forward(sub *hub.Subscription, done chan<- struct{}) {
	defer close(done)
	defer sub.Close()
	for e := range sub.Events() {
		limit := hub.DefaultLiveEventBytes
		if b.liveEventBytes != nil {
			limit = b.liveEventBytes()
		}
		data, _, err := hub.CutEvent(e, limit)
		if err != nil {
			b.log.Error("window: event not sent", "seq", e.Seq, "type", e.Type, "err", err)
			continue
		}
		if e.Type == hub.EventResync {
			b.emit.Emit(EventHubResync, json.RawMessage(data))
			return
		}
		b.emit.Emit(EventHubEvent, json.RawMessage(data))
	}
}

// formatError is the app's Wails ErrorFormatter: a failed binding call
// rejects with the JSON string {"code","message"} (hub.ErrorCode,
// hub.ErrorMessage), the body the HTTP API sends as its error.
func formatError(err error) any {
	b, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{hub.ErrorCode(err), hub.ErrorMessage(err)})
	return string(b)
}

// QueryElicitations is Service.QueryElicitations (GET /v1/elicitations).
func (b *Bindings) QueryElicitations(q hub.ElicitationQuery) (hub.ElicitationPage, error) {
	return b.svcs.Service.QueryElicitations(b.ctx, windowCaller, q)
}

// AnswerElicitation is Service.AnswerElicitation (POST
// /v1/elicitations/{id}), answered as decidedBy "window".
func (b *Bindings) AnswerElicitation(id string, a hub.ElicitationAnswer) (hub.Elicitation, error) {
	return b.svcs.Service.AnswerElicitation(b.ctx, windowCaller, id, a)
}

// OpenElicitationURL opens a pending URL-mode elicitation's link in the
// user's browser (Wails' BrowserOpenURL), never in the window. The window
// names the elicitation, not the URL: only a link the hub checked
// (hub.CheckElicitationURL: http or https, no user info) is opened.
// NOT_FOUND for an unknown one, INVALID_ARGUMENT for a form, CONFLICT
// once it is no longer pending.
func (b *Bindings) OpenElicitationURL(id string) error {
	var found *hub.Elicitation
	for cursor := ""; found == nil; {
		page, err := b.svcs.Service.QueryElicitations(b.ctx, windowCaller, hub.ElicitationQuery{Status: hub.ElicitationPending, Cursor: cursor})
		if err != nil {
			return err
		}
		for i := range page.Elicitations {
			if page.Elicitations[i].ID == id {
				found = &page.Elicitations[i]
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if found == nil {
		return hub.Errorf(hub.CodeConflict, "elicitation %s is not pending", id)
	}
	if found.Mode != hub.ElicitationURL {
		return hub.Errorf(hub.CodeInvalidArgument, "elicitation %s has no link", id)
	}
	if err := hub.CheckElicitationURL(found.URL); err != nil {
		return err
	}
	o, ok := b.emit.(urlOpener)
	if !ok {
		return hub.Errorf(hub.CodeInternal, "this window cannot open a browser")
	}
	return o.OpenURL(found.URL)
}
