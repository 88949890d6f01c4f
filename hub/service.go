package hub

import (
	"context"
	"encoding/json"
	"strings"
)

// Caller says who is calling the Service. Adapters build it from their
// transport: hub/httpapi from X-Client-ID, ?scope=all and the credential
// that authorized the request; app for the window and its notifications;
// the tray and the editor bridge through the HTTP API.
type Caller struct {
	// ClientID owns the threads the caller creates; it must match
	// [A-Za-z0-9._-]{1,64}. Any token holder chooses its own.
	ClientID string
	// All lifts the ownership filter (scope=all): the caller sees every
	// client's threads, events and permissions.
	All bool
	// Surface is the deciding surface a credential proved (one of the
	// Surface* values), recorded as a permission's decidedBy; empty for
	// any other token holder, recorded as "client:<ClientID>". Only an
	// adapter sets it, from what authenticated the caller (app in-process
	// for the window and notifications; hub/httpapi's token check for a
	// browser login and the tray's per-launch secret), never from a
	// value the request names.
	Surface string
}

// Deciding surfaces (Caller.Surface), recorded as Permission.DecidedBy.
const (
	SurfaceWindow       = "window"       // the desktop window, in-process
	SurfaceNotification = "notification" // a desktop notification's action, in-process
	SurfaceBrowser      = "browser"      // a browser login of the web UI
	SurfaceTray         = "tray"         // the app's own tray child (per-launch secret)
)

// TraySecretHeader carries the per-launch secret the desktop app hands the
// tray it starts (over an inherited pipe, never argv or env). The hub
// compares it in constant time; with it a token holder's decisions are
// recorded as "tray", without it as "client:<X-Client-ID>".
const TraySecretHeader = "X-Switchboard-Tray"

// DecidedByOf is what Permission.DecidedBy records for a decision by c:
// its Surface when it has one (a link's "link:<surface>" included), else "client:<ClientID>".
func DecidedByOf(c Caller) string {
	switch c.Surface {
	case SurfaceWindow, SurfaceNotification, SurfaceBrowser, SurfaceTray:
		return c.Surface
	}
	if strings.HasPrefix(c.Surface, DecidedByLinkPrefix) && LinkSurface(strings.TrimPrefix(c.Surface, DecidedByLinkPrefix)) == c.Surface {
		return c.Surface // a decision over a link (host.go)
	}
	return DecidedByClientPrefix + c.ClientID
}

// MaxAdditionalDirectories bounds CreateThreadRequest.AdditionalDirectories.
const MaxAdditionalDirectories = 16

// CreateThreadRequest is the body of POST /v1/threads.
type CreateThreadRequest struct {
	Agent string `json:"agent"`
	Cwd   string `json:"cwd"`
	Title string `json:"title,omitempty"`
	// Host, when set and not "local", is the host the thread runs on
	// (issue 30, host.go): Agent and Cwd are that host's. The local hub
	// creates it there and answers with its copy ("<id>@<host>").
	Host string `json:"host,omitempty"`
	// OpenSession (an extension) starts the thread's agent and opens its
	// session before answering, so the thread carries its modes and
	// config options (the editor bridge's session/new). Best effort: the
	// thread is created even when the agent fails to start.
	OpenSession bool `json:"openSession,omitempty"`
	// AdditionalDirectories (an extension) are extra folders the thread's
	// agent may use besides Cwd (Thread.AdditionalDirectories): each an
	// absolute path of an existing folder, at most MaxAdditionalDirectories,
	// neither the file system's root nor inside a folder the hub protects;
	// else INVALID_ARGUMENT naming it.
	//
	// Absent (nil), a thread gets its folder's configured extra folders
	// (folders.<glob>.additionalDirectories, the ones that exist; ADR
	// 0051); an empty list gives it none (omitzero keeps [] when a
	// request is forwarded to a host).
	AdditionalDirectories []string `json:"additionalDirectories,omitzero"`
	// ClientCapabilities (an extension), when set, are the ACP client
	// capabilities of the editor behind the thread: the agent's fs/* and
	// terminal/* requests they cover become client_request events for the
	// thread's owner to answer (AnswerClientRequest) instead of being
	// served by the hub (fs/* also while no stream of the owner is
	// attached). They are stored with the thread (Thread.ClientCapabilities)
	// and never change.
	ClientCapabilities *ClientCapabilities `json:"clientCapabilities,omitempty"`
	// MCPServers (an extension) are MCP servers for the thread's agent
	// sessions, in ACP's session/new shape ({name, command, args, env} or
	// {type, name, url, headers}): the editor bridge passes the editor's.
	// Merged with the config's by name (these win). Kept in memory only,
	// never stored.
	MCPServers []json.RawMessage `json:"mcpServers,omitempty"`
	// Worktree (issue 19): true runs the thread's agent in a new git
	// worktree of the folder's repository (Thread.Worktree); false in the
	// folder; absent: the folder's default (folders.<glob>.worktree). An
	// object starts it on an existing branch or worktree (issue 31,
	// WorktreeRequest).
	Worktree *WorktreeRequest `json:"worktree,omitempty"`
}

// ThreadPage is a page of threads, newest first.
type ThreadPage struct {
	Threads    []Thread `json:"threads"`
	NextCursor string   `json:"nextCursor,omitempty"`
}

// TurnInput is the body of POST /v1/threads/{id}/turns: plain text, or ACP
// content blocks (text, image, audio, resource, resource_link).
type TurnInput struct {
	Input   string            `json:"input,omitempty"`
	Content []json.RawMessage `json:"content,omitempty"`
}

// TurnHistory is a turn with, when asked for, its events.
type TurnHistory struct {
	Turn
	Events []Event `json:"events,omitempty"`
}

// HistoryQuery asks for a page of a thread's history: up to Limit turns
// (default 50, at most 500) oldest first, after Cursor (a previous page's
// NextCursor; "" for the first page).
type HistoryQuery struct {
	IncludeEvents   bool   `json:"includeEvents,omitempty"`
	IncludeInternal bool   `json:"includeInternal,omitempty"`
	Limit           int    `json:"limit,omitempty"`
	Cursor          string `json:"cursor,omitempty"`
}

// HistoryPage is a page of a thread's history, oldest first. NextCursor is
// set when more turns follow. A page holds fewer than Limit turns when
// they would exceed MaxHistoryBytes, but always at least one.
type HistoryPage struct {
	Turns      []TurnHistory `json:"turns"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// Decision is the body of POST /v1/permissions/{id}: an outcome
// ("approved" selects the agent's allow_once option, "declined" its
// reject_once) or an exact OptionID. Remember (RememberThread,
// RememberFolder, RememberAgent; "" for none) also adds a RememberedRule
// deciding later requests like this one the same way (allow or deny).
type Decision struct {
	Outcome  string `json:"outcome,omitempty"`
	OptionID string `json:"optionId,omitempty"`
	Remember string `json:"remember,omitempty"`
}

// Service is everything a client can do with the hub. Every method checks
// that the caller may see what it names: another client's thread is
// NOT_FOUND, never FORBIDDEN. Errors are *Error with a code.
type Service interface {
	ListAgents(ctx context.Context) ([]Agent, error)

	CreateThread(ctx context.Context, c Caller, req CreateThreadRequest) (Thread, error)
	ListThreads(ctx context.Context, c Caller, limit int, cursor string) (ThreadPage, error)
	GetThread(ctx context.Context, c Caller, id string) (Thread, error)
	RenameThread(ctx context.Context, c Caller, id, title string) (Thread, error)
	// DeleteThread cancels its turn, stops its agent and hides it.
	DeleteThread(ctx context.Context, c Caller, id string) error
	// CompactThread runs an internal turn asking the agent for a summary and
	// stores it as the thread's summary.
	CompactThread(ctx context.Context, c Caller, id string) (Thread, error)

	// StartTurn starts a turn and returns at once; its events follow on
	// Subscribe. CONFLICT when one is running on the thread,
	// TOO_MANY_REQUESTS when the agent process limit is reached,
	// INVALID_ARGUMENT with details {blockIndex, type, agent}, before any
	// turn is stored, for content the thread's agent cannot take (outside
	// its promptCapabilities; the agent is started to learn them when
	// they are not known yet).
	StartTurn(ctx context.Context, c Caller, threadID string, in TurnInput) (Turn, error)
	// CancelTurn ends a running turn as cancelled (within 5 s even when
	// the agent ignores the cancel) and returns it.
	CancelTurn(ctx context.Context, c Caller, turnID string) (Turn, error)
	// History is the thread's whole history, oldest first: PAYLOAD_TOO_LARGE
	// (details.reason HISTORY_TOO_LARGE) when it exceeds MaxHistoryBytes of
	// JSON, and the caller pages with HistoryPage.
	History(ctx context.Context, c Caller, threadID string, includeEvents, includeInternal bool) ([]TurnHistory, error)
	// HistoryPage is History a page of turns at a time (HistoryQuery). A
	// malformed cursor is INVALID_ARGUMENT.
	HistoryPage(ctx context.Context, c Caller, threadID string, q HistoryQuery) (HistoryPage, error)

	// Subscribe streams the events the caller may see with Seq > after
	// (after < 0: only events committed from now on), optionally of one
	// thread: the stored ones first, then live ones, in order, with no gap
	// and no duplicate.
	Subscribe(ctx context.Context, c Caller, threadID string, after int64) (*Subscription, error)

	// OpenSession starts the thread's agent and opens its session when
	// none is open, as a turn would (its session defaults set, ADR 0032),
	// and returns the thread with the session's modes and config options;
	// the same events a turn's session would emit say so (mode_changed,
	// config_options, available_commands). A window calls it right after
	// creating a thread, without waiting, so its pickers are there before
	// the first prompt. UPSTREAM_UNAVAILABLE when the agent cannot be
	// started; TOO_MANY_REQUESTS over limits.maxAgentProcesses.
	OpenSession(ctx context.Context, c Caller, threadID string) (Thread, error)
	// SetMode switches the thread's agent session to modeId (one of
	// Thread.Modes.availableModes) and returns the thread with its modes
	// as they now are. The agent and its session are started when the
	// thread has none running, as a turn would start them.
	// INVALID_ARGUMENT when the agent refuses the mode,
	// UPSTREAM_UNAVAILABLE when it cannot be started or fails.
	SetMode(ctx context.Context, c Caller, threadID, modeID string) (Thread, error)
	// SetConfigOption sets one of the session's config options (the model,
	// for instance) and returns the thread with the agent's updated
	// Thread.ConfigOptions. Errors as SetMode.
	SetConfigOption(ctx context.Context, c Caller, threadID, configID, value string) (Thread, error)

	// ListPermissions is QueryPermissions{Status: status}'s first page
	// (at most MaxPermissionPage, newest first).
	ListPermissions(ctx context.Context, c Caller, status string) ([]Permission, error)
	// QueryPermissions is the audit: the permissions of the threads the
	// caller may see that q selects, newest first, a page at a time. A
	// malformed filter or cursor is INVALID_ARGUMENT.
	QueryPermissions(ctx context.Context, c Caller, q PermissionQuery) (PermissionPage, error)

	// Search finds prompts, messages, thoughts, tool calls and thread
	// titles matching q.Q (SQLite FTS5 syntax) in the caller's threads
	// (every thread with scope=all), newest first, a page at a time.
	// INVALID_ARGUMENT for an empty or malformed query, a limit outside
	// 1..MaxSearchLimit, From after To, or a malformed cursor.
	Search(ctx context.Context, c Caller, q SearchQuery) (SearchPage, error)
	// DecidePermission records the decision durably, then tells the agent.
	// A permission already decided or expired is CONFLICT. With
	// d.Remember it also stores a RememberedRule (DecisionResult.Rule).
	DecidePermission(ctx context.Context, c Caller, id string, d Decision) (DecisionResult, error)
	// DecidePermissions decides each of b.IDs as DecidePermission would,
	// in order, and reports each one's result; it fails as a whole only
	// for a malformed request (INVALID_ARGUMENT).
	DecidePermissions(ctx context.Context, c Caller, b BatchDecision) (BatchResult, error)
	// ListRules lists the remembered rules the caller may see (every one
	// for a caller with All, else those it created), oldest first.
	ListRules(ctx context.Context, c Caller) ([]RememberedRule, error)
	// DeleteRule removes a remembered rule; NOT_FOUND when unknown or not
	// the caller's to see.
	DeleteRule(ctx context.Context, c Caller, id string) error

	// AnswerClientRequest answers a pending client_request of the thread:
	// the agent gets a.Result or a.Error verbatim. Only the thread's
	// owner may answer (anyone else, scope=all included, is NOT_FOUND, as
	// is an unknown request); a request already answered, timed out or
	// dropped (its turn cancelled, its agent gone) is CONFLICT.
	AnswerClientRequest(ctx context.Context, c Caller, threadID, requestID string, a ClientAnswer) error
	// ClientRequestParams is a pending client request of the thread with
	// its params as the agent sent them (unredacted: what the owner needs
	// to serve it; kept in memory only). The owner only, as for
	// AnswerClientRequest (NOT_FOUND otherwise, or when unknown); one no
	// longer pending is CONFLICT.
	ClientRequestParams(ctx context.Context, c Caller, threadID, requestID string) (ClientRequest, error)

	// Shelf: archive, export and import (hub/shelf.go).
	Shelf
	// AgentSessions: the agent's own sessions, listed and imported
	// (hub/agentsessions.go).
	AgentSessions
	// Elicitations: the agents' questions (hub/elicitation.go).
	Elicitations
}
