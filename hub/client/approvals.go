package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// The calls of "Approvals with leverage" (docs/API.md): a decision that
// may be remembered, batch decisions, the remembered rules and the audit.

// DecideResult decides a permission (POST /v1/permissions/{id}) and
// returns the whole answer: the permission as decided and, for a decision
// with Remember, the rule it added (Rule) and the config rule that would
// match the same requests first (ShadowedBy). d has exactly one of Outcome
// and OptionID. One already decided is an *Error with code CONFLICT; an
// unknown one (or another client's without ?scope=all) NOT_FOUND.
func (c *Client) DecideResult(ctx context.Context, id string, d hub.Decision) (hub.DecisionResult, error) {
	var out hub.DecisionResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/permissions/" + esc(id), body: d}, &out)
	return out, err
}

// DecideBatch decides several pending permissions with the same words
// (POST /v1/permissions/decide). The error is for the request as a whole
// (a bad outcome or remember: INVALID_ARGUMENT); each id's own failure
// (CONFLICT: already decided; NOT_FOUND: unknown) is in its BatchItem,
// in the order given.
func (c *Client) DecideBatch(ctx context.Context, b hub.BatchDecision) ([]hub.BatchItem, error) {
	var out hub.BatchResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/permissions/decide", body: b}, &out)
	return out.Results, err
}

// Rules lists the remembered decisions (GET /v1/rules).
func (c *Client) Rules(ctx context.Context) ([]hub.RememberedRule, error) {
	var out struct {
		Rules []hub.RememberedRule `json:"rules"`
	}
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/rules"}, &out)
	return out.Rules, err
}

// DeleteRule removes a remembered decision (DELETE /v1/rules/{id}); an
// unknown id is an *Error with code NOT_FOUND.
func (c *Client) DeleteRule(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/rules/" + esc(id)}, nil)
}

// PermissionsPage is one page of the audit, newest first (GET
// /v1/permissions?status&decidedBy&agent&threadId&from&to&limit&cursor):
// q's empty fields are not sent; q.Limit 0 is the hub's bound (500); the
// next page is asked with the answer's NextCursor until it is "".
func (c *Client) PermissionsPage(ctx context.Context, q hub.PermissionQuery) (hub.PermissionPage, error) {
	var out hub.PermissionPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/permissions", query: auditQuery(q)}, &out)
	return out, err
}

// auditQuery is the query of an audit page, the permissions' or (the same
// fields, converted) the elicitations': q's filters that are set, its
// limit when above 0.
func auditQuery(q hub.PermissionQuery) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"status": q.Status, "decidedBy": q.DecidedBy, "agent": q.Agent,
		"threadId": q.ThreadID, "from": q.From, "to": q.To, "cursor": q.Cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}
