package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/switchboard-hub/switchboard/hub"
)

// Remote is a hub reached through its API as the hub's own interfaces:
// every capability of hub.Services (Services), so a hub elsewhere (another
// process, another machine) is one more implementation of them and the
// adapters and the contract suite (hub/contract) take it like the engine.
//
// Each call goes as the hub.Caller it is given: X-Client-ID its ClientID
// (the Client's own when empty) and ?scope=all when All. Caller.Surface
// is not sent (no request can claim one): the hub records what the
// Client's credential proves. Errors are the Client's (*Error unwraps to
// a *hub.Error of the same code and message).
type Remote struct{ c *Client }

// Remote is the Client as the hub's interfaces.
func (c *Client) Remote() *Remote { return &Remote{c: c} }

// Services is the Client as a hub.Services with every capability set:
// which ones the hub behind it has shows in its answers (NOT_FOUND for
// one it lacks, as hub/httpapi answers a nil field).
func (c *Client) Services() hub.Services {
	r := c.Remote()
	return hub.Services{Service: r, Work: r, Usage: r, Settings: r, Installer: r, AgentAuth: r, HostHubs: r, Hosts: r, Queue: r}
}

var (
	_ hub.Service         = (*Remote)(nil)
	_ hub.WorkService     = (*Remote)(nil)
	_ hub.UsageService    = (*Remote)(nil)
	_ hub.SettingsService = (*Remote)(nil)
	_ hub.AgentInstaller  = (*Remote)(nil)
	_ hub.AgentAuth       = (*Remote)(nil)
	_ hub.HostHubs        = (*Remote)(nil)
	_ hub.SettingsService = (*Client)(nil)
)

type (
	callerKey   struct{}
	callerValue hub.Caller
)

// as is ctx with the caller the requests made under it go as.
func as(ctx context.Context, c hub.Caller) context.Context {
	v := callerValue(c)
	return context.WithValue(ctx, callerKey{}, &v)
}

// ListAgents implements hub.Service (GET /v1/agents).
func (r *Remote) ListAgents(ctx context.Context) ([]hub.Agent, error) { return r.c.Agents(ctx) }

// CreateThread implements hub.Service (POST /v1/threads).
func (r *Remote) CreateThread(ctx context.Context, c hub.Caller, req hub.CreateThreadRequest) (hub.Thread, error) {
	return r.c.CreateThread(as(ctx, c), req)
}

// ListThreads implements hub.Service (GET /v1/threads).
func (r *Remote) ListThreads(ctx context.Context, c hub.Caller, limit int, cursor string) (hub.ThreadPage, error) {
	return r.c.Threads(as(ctx, c), limit, cursor)
}

// GetThread implements hub.Service (GET /v1/threads/{id}).
func (r *Remote) GetThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	return r.c.Thread(as(ctx, c), id)
}

// RenameThread implements hub.Service (PATCH /v1/threads/{id}).
func (r *Remote) RenameThread(ctx context.Context, c hub.Caller, id, title string) (hub.Thread, error) {
	return r.c.RenameThread(as(ctx, c), id, title)
}

// DeleteThread implements hub.Service (DELETE /v1/threads/{id}).
func (r *Remote) DeleteThread(ctx context.Context, c hub.Caller, id string) error {
	return r.c.DeleteThread(as(ctx, c), id)
}

// CompactThread implements hub.Service (POST /v1/threads/{id}/compact).
func (r *Remote) CompactThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	return r.c.CompactThread(as(ctx, c), id)
}

// StartTurn implements hub.Service (POST /v1/threads/{id}/turns).
func (r *Remote) StartTurn(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.Turn, error) {
	return r.c.StartTurn(as(ctx, c), threadID, in)
}

// CancelTurn implements hub.Service (POST /v1/turns/{id}/cancel).
func (r *Remote) CancelTurn(ctx context.Context, c hub.Caller, turnID string) (hub.Turn, error) {
	return r.c.CancelTurn(as(ctx, c), turnID)
}

// History implements hub.Service (GET /v1/threads/{id}/history).
func (r *Remote) History(ctx context.Context, c hub.Caller, threadID string, includeEvents, includeInternal bool) ([]hub.TurnHistory, error) {
	q := url.Values{}
	if includeEvents {
		q.Set("includeEvents", "true")
	}
	if includeInternal {
		q.Set("includeInternal", "true")
	}
	var out struct {
		Turns []hub.TurnHistory `json:"turns"`
	}
	err := r.c.call(as(ctx, c), request{method: http.MethodGet, path: "/v1/threads/" + esc(threadID) + "/history", query: q}, &out)
	return out.Turns, err
}

// HistoryPage implements hub.Service.
func (r *Remote) HistoryPage(ctx context.Context, c hub.Caller, threadID string, q hub.HistoryQuery) (hub.HistoryPage, error) {
	return r.c.HistoryPage(as(ctx, c), threadID, q)
}

// Subscribe implements hub.Service over GET /v1/events or GET
// /v1/threads/{id}/events, without reconnecting: a stream that falls
// behind ends with a resync event, as the engine's does; one that breaks
// otherwise just ends.
func (r *Remote) Subscribe(ctx context.Context, c hub.Caller, threadID string, after int64) (*hub.Subscription, error) {
	ctx = as(ctx, c)
	var s *Stream
	var err error
	if threadID == "" {
		s, err = r.c.Events(ctx, after, StreamOptions{})
	} else {
		s, err = r.c.ThreadEvents(ctx, threadID, after, StreamOptions{})
	}
	if err != nil {
		return nil, err
	}
	ch := make(chan hub.Event, 64)
	stop := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			ev, err := s.Next()
			if errors.Is(err, ErrResync) {
				ev, err = hub.Event{Type: hub.EventResync, Payload: json.RawMessage(`{}`)}, nil
			}
			if err != nil {
				return
			}
			select {
			case ch <- ev:
			case <-stop:
				return
			}
			if ev.Type == hub.EventResync {
				return
			}
		}
	}()
	return hub.NewSubscription(ch, func() { close(stop); s.Close() }), nil
}

// OpenSession implements hub.Service (POST /v1/threads/{id}/session).
func (r *Remote) OpenSession(ctx context.Context, c hub.Caller, threadID string) (hub.Thread, error) {
	return r.c.OpenSession(as(ctx, c), threadID)
}

// SetMode implements hub.Service (POST /v1/threads/{id}/mode).
func (r *Remote) SetMode(ctx context.Context, c hub.Caller, threadID, modeID string) (hub.Thread, error) {
	return r.c.SetMode(as(ctx, c), threadID, modeID)
}

// SetConfigOption implements hub.Service (POST /v1/threads/{id}/config).
func (r *Remote) SetConfigOption(ctx context.Context, c hub.Caller, threadID, configID, value string) (hub.Thread, error) {
	return r.c.SetConfigOption(as(ctx, c), threadID, configID, value)
}

// ListPermissions implements hub.Service (GET /v1/permissions?status=).
func (r *Remote) ListPermissions(ctx context.Context, c hub.Caller, status string) ([]hub.Permission, error) {
	return r.c.Permissions(as(ctx, c), status)
}

// QueryPermissions implements hub.Service (GET /v1/permissions, the audit).
func (r *Remote) QueryPermissions(ctx context.Context, c hub.Caller, q hub.PermissionQuery) (hub.PermissionPage, error) {
	return r.c.PermissionsPage(as(ctx, c), q)
}

// Search implements hub.Service (GET /v1/search).
func (r *Remote) Search(ctx context.Context, c hub.Caller, q hub.SearchQuery) (hub.SearchPage, error) {
	return r.c.Search(as(ctx, c), q)
}

// DecidePermission implements hub.Service (POST /v1/permissions/{id}).
func (r *Remote) DecidePermission(ctx context.Context, c hub.Caller, id string, d hub.Decision) (hub.DecisionResult, error) {
	return r.c.DecideResult(as(ctx, c), id, d)
}

// DecidePermissions implements hub.Service (POST /v1/permissions/decide).
func (r *Remote) DecidePermissions(ctx context.Context, c hub.Caller, b hub.BatchDecision) (hub.BatchResult, error) {
	items, err := r.c.DecideBatch(as(ctx, c), b)
	return hub.BatchResult{Results: items}, err
}

// ListRules implements hub.Service (GET /v1/rules).
func (r *Remote) ListRules(ctx context.Context, c hub.Caller) ([]hub.RememberedRule, error) {
	return r.c.Rules(as(ctx, c))
}

// DeleteRule implements hub.Service (DELETE /v1/rules/{id}).
func (r *Remote) DeleteRule(ctx context.Context, c hub.Caller, id string) error {
	return r.c.DeleteRule(as(ctx, c), id)
}

// AnswerClientRequest implements hub.Service.
func (r *Remote) AnswerClientRequest(ctx context.Context, c hub.Caller, threadID, requestID string, a hub.ClientAnswer) error {
	return r.c.AnswerClientRequest(as(ctx, c), threadID, requestID, a)
}

// ClientRequestParams implements hub.Service.
func (r *Remote) ClientRequestParams(ctx context.Context, c hub.Caller, threadID, requestID string) (hub.ClientRequest, error) {
	return r.c.ClientRequestParams(as(ctx, c), threadID, requestID)
}

// QueryThreads implements hub.Shelf (GET /v1/threads?archived=).
func (r *Remote) QueryThreads(ctx context.Context, c hub.Caller, q hub.ThreadQuery) (hub.ThreadPage, error) {
	return r.c.ThreadsQuery(as(ctx, c), q)
}

// SetArchived implements hub.Shelf (PATCH /v1/threads/{id} {archived}).
func (r *Remote) SetArchived(ctx context.Context, c hub.Caller, id string, archived bool) (hub.Thread, error) {
	return r.c.SetArchived(as(ctx, c), id, archived)
}

// ArchiveThreads implements hub.Shelf (POST /v1/threads/archive).
func (r *Remote) ArchiveThreads(ctx context.Context, c hub.Caller, req hub.ArchiveRequest) (hub.ArchiveResult, error) {
	n, err := r.c.ArchiveThreads(as(ctx, c), req)
	return hub.ArchiveResult{Archived: n}, err
}

// ExportThreads implements hub.Shelf: the export streamed into w.
func (r *Remote) ExportThreads(ctx context.Context, c hub.Caller, req hub.ExportRequest, w io.Writer) error {
	body, err := r.c.Export(as(ctx, c), req)
	if err != nil {
		return err
	}
	defer body.Close()
	_, err = io.Copy(w, body)
	return err
}

// ImportThreads implements hub.Shelf (POST /v1/threads/import).
func (r *Remote) ImportThreads(ctx context.Context, c hub.Caller, req hub.ImportRequest, rd io.Reader) (hub.ImportResult, error) {
	return r.c.ImportInto(as(ctx, c), req, rd)
}

// ListAgentSessions implements hub.AgentSessions (GET /v1/agents/{id}/sessions).
func (r *Remote) ListAgentSessions(ctx context.Context, c hub.Caller, agentID, cwd, cursor string) (hub.AgentSessionPage, error) {
	return r.c.AgentSessions(as(ctx, c), agentID, cwd, cursor)
}

// ImportSession implements hub.AgentSessions (POST /v1/threads/import-session).
func (r *Remote) ImportSession(ctx context.Context, c hub.Caller, req hub.ImportSessionRequest) (hub.ImportSessionResult, error) {
	return r.c.ImportSession(as(ctx, c), req)
}

// QueryElicitations implements hub.Elicitations (GET /v1/elicitations).
func (r *Remote) QueryElicitations(ctx context.Context, c hub.Caller, q hub.ElicitationQuery) (hub.ElicitationPage, error) {
	return r.c.ElicitationsPage(as(ctx, c), q)
}

// AnswerElicitation implements hub.Elicitations (POST /v1/elicitations/{id}).
func (r *Remote) AnswerElicitation(ctx context.Context, c hub.Caller, id string, a hub.ElicitationAnswer) (hub.Elicitation, error) {
	return r.c.AnswerElicitation(as(ctx, c), id, a)
}
