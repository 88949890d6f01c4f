package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// The typed calls, one per endpoint (docs/API.md). Each returns the
// resource the hub answered, or an error: *Error for an answer other than
// 2xx, *UnreachableError when no hub answered, ErrNoHub or *DataDirError
// when none could be found.

func esc(s string) string { return url.PathEscape(s) }

// Agents lists the agents the hub knows (GET /v1/agents).
func (c *Client) Agents(ctx context.Context) ([]hub.Agent, error) {
	var out struct {
		Agents []hub.Agent `json:"agents"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/agents"}, &out)
	return out.Agents, err
}

// CreateThread creates a thread (POST /v1/threads).
func (c *Client) CreateThread(ctx context.Context, req hub.CreateThreadRequest) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads", body: req}, &out)
	return out.Thread, err
}

// Threads lists one page of threads, newest first (GET /v1/threads);
// limit 0 is the hub's default, cursor "" the first page.
func (c *Client) Threads(ctx context.Context, limit int, cursor string) (hub.ThreadPage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out hub.ThreadPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads", query: q}, &out)
	return out, err
}

// Thread returns one thread (GET /v1/threads/{id}).
func (c *Client) Thread(ctx context.Context, id string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(id)}, &out)
	return out.Thread, err
}

// History returns a thread's turns, oldest first, with their events when
// includeEvents (GET /v1/threads/{id}/history). A history over the hub's
// bound (64 MiB of JSON) is an *Error with Status 413 and
// details.reason hub.ReasonHistoryTooLarge: read it with HistoryPage.
func (c *Client) History(ctx context.Context, threadID string, includeEvents bool) ([]hub.TurnHistory, error) {
	var q url.Values
	if includeEvents {
		q = url.Values{"includeEvents": {"true"}}
	}
	var out struct {
		Turns []hub.TurnHistory `json:"turns"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(threadID) + "/history", query: q}, &out)
	return out.Turns, err
}

// HistoryPage returns a page of a thread's turns, oldest first (GET
// /v1/threads/{id}/history?limit&cursor): q.Limit 0 is the hub's default,
// q.Cursor "" the first page, then each page's NextCursor until it is "".
func (c *Client) HistoryPage(ctx context.Context, threadID string, q hub.HistoryQuery) (hub.HistoryPage, error) {
	v := url.Values{}
	if q.IncludeEvents {
		v.Set("includeEvents", "true")
	}
	if q.IncludeInternal {
		v.Set("includeInternal", "true")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	// cursor is sent even empty: limit or cursor is what asks for a page.
	v.Set("cursor", q.Cursor)
	var out hub.HistoryPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/threads/" + esc(threadID) + "/history", query: v}, &out)
	return out, err
}

// StartTurn starts a turn and returns it at once (POST
// /v1/threads/{id}/turns without an event stream); StreamTurn streams it.
func (c *Client) StartTurn(ctx context.Context, threadID string, in hub.TurnInput) (hub.Turn, error) {
	var out struct {
		Turn hub.Turn `json:"turn"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/turns", body: in}, &out)
	return out.Turn, err
}

// CancelTurn cancels a running turn (POST /v1/turns/{id}/cancel) and
// returns it.
func (c *Client) CancelTurn(ctx context.Context, turnID string) (hub.Turn, error) {
	var out struct {
		Turn hub.Turn `json:"turn"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/turns/" + esc(turnID) + "/cancel"}, &out)
	return out.Turn, err
}

// OpenSession opens the thread's agent session when none is open (POST
// /v1/threads/{id}/session).
func (c *Client) OpenSession(ctx context.Context, threadID string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/session"}, &out)
	return out.Thread, err
}

// SetMode switches the thread's agent session to modeID (POST
// /v1/threads/{id}/mode).
func (c *Client) SetMode(ctx context.Context, threadID, modeID string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/mode",
		body: map[string]string{"modeId": modeID}}, &out)
	return out.Thread, err
}

// SetConfigOption sets one of the session's config options (POST
// /v1/threads/{id}/config-option).
func (c *Client) SetConfigOption(ctx context.Context, threadID, configID, value string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(threadID) + "/config-option",
		body: map[string]string{"configId": configID, "value": value}}, &out)
	return out.Thread, err
}

// Permissions lists permissions, of one status when status is not ""
// (GET /v1/permissions).
func (c *Client) Permissions(ctx context.Context, status string) ([]hub.Permission, error) {
	var q url.Values
	if status != "" {
		q = url.Values{"status": {status}}
	}
	var out struct {
		Permissions []hub.Permission `json:"permissions"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/permissions", query: q}, &out)
	return out.Permissions, err
}

// Decide decides a permission (POST /v1/permissions/{id}) and returns it
// as decided; d has exactly one of Outcome and OptionID, and may Remember
// (DecideResult also returns the rule that adds). One already decided is
// an *Error with code CONFLICT.
func (c *Client) Decide(ctx context.Context, id string, d hub.Decision) (hub.Permission, error) {
	r, err := c.DecideResult(ctx, id, d)
	return r.Permission, err
}

// AnswerClientRequest answers a client_request event of the thread (POST
// /v1/threads/{id}/client-requests/{requestId}). One that ended in the hub
// first is an *Error with code CONFLICT.
func (c *Client) AnswerClientRequest(ctx context.Context, threadID, requestID string, a hub.ClientAnswer) error {
	return c.call(ctx, request{method: http.MethodPost,
		path: "/v1/threads/" + esc(threadID) + "/client-requests/" + esc(requestID), body: a}, nil)
}

// ClientRequestParams reads a pending client request of the thread with
// its params as the agent sent them (GET
// /v1/threads/{id}/client-requests/{requestId}): the event's are redacted
// when ParamsRedacted says so.
func (c *Client) ClientRequestParams(ctx context.Context, threadID, requestID string) (hub.ClientRequest, error) {
	var out struct {
		ClientRequest hub.ClientRequest `json:"clientRequest"`
	}
	err := c.call(ctx, request{method: http.MethodGet,
		path: "/v1/threads/" + esc(threadID) + "/client-requests/" + esc(requestID)}, &out)
	return out.ClientRequest, err
}

// Shutdown asks the hub to stop gracefully (POST /v1/shutdown).
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/shutdown"}, nil)
}

// RenameThread sets a thread's title (PATCH /v1/threads/{id}).
func (c *Client) RenameThread(ctx context.Context, id, title string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPatch, path: "/v1/threads/" + esc(id),
		body: map[string]string{"title": title}}, &out)
	return out.Thread, err
}

// DeleteThread deletes a thread (DELETE /v1/threads/{id}).
func (c *Client) DeleteThread(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/threads/" + esc(id)}, nil)
}

// CompactThread stores a summary of the thread (POST
// /v1/threads/{id}/compact).
func (c *Client) CompactThread(ctx context.Context, id string) (hub.Thread, error) {
	var out struct {
		Thread hub.Thread `json:"thread"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/threads/" + esc(id) + "/compact"}, &out)
	return out.Thread, err
}

// Settings reads the settings (GET /v1/settings).
func (c *Client) Settings(ctx context.Context) (hub.Settings, error) {
	var out struct {
		Settings hub.Settings `json:"settings"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/settings"}, &out)
	return out.Settings, err
}

// UpdateSettings edits the config file (PATCH /v1/settings).
func (c *Client) UpdateSettings(ctx context.Context, p hub.SettingsPatch) (hub.Settings, error) {
	var out struct {
		Settings hub.Settings `json:"settings"`
	}
	err := c.call(ctx, request{method: http.MethodPatch, path: "/v1/settings", body: p}, &out)
	return out.Settings, err
}

// LoginLink asks for a one-time login link for a browser (POST
// /v1/auth/codes): the URL, GET /auth?code=…, opens next (a path on the
// hub, "/" or "/#/t/<thread id>") signed in. It works once, within 30 s,
// and holds no token: hand it to a browser instead of the token.
func (c *Client) LoginLink(ctx context.Context, next string) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/auth/codes", body: map[string]string{"next": next}}, &out)
	return out.URL, err
}

// RotateToken has the hub replace its API token (POST
// /v1/auth/token/rotate): it writes the new one to the token file, and
// the old one is refused from then on. Clients, this one included, read
// the token file again on their next 401.
func (c *Client) RotateToken(ctx context.Context) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/v1/auth/token/rotate"}, nil)
}
