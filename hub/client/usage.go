package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Usage reads the usage ledger (GET /v1/usage): q.By, q.From and q.To (zero:
// open), q.ThreadID, q.Loc (sent as tz when set), q.Limit and q.Cursor (a
// previous answer's NextCursor).
func (c *Client) Usage(ctx context.Context, q hub.UsageQuery) (hub.UsageReport, error) {
	v := url.Values{}
	if q.By != "" {
		v.Set("by", q.By)
	}
	if !q.From.IsZero() {
		v.Set("from", q.From.Format(time.RFC3339Nano))
	}
	if !q.To.IsZero() {
		v.Set("to", q.To.Format(time.RFC3339Nano))
	}
	if q.ThreadID != "" {
		v.Set("threadId", q.ThreadID)
	}
	if q.Loc != nil && q.Loc.String() != "Local" {
		v.Set("tz", q.Loc.String())
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	var out hub.UsageReport
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/usage", query: v}, &out)
	return out, err
}

// OverrideBudget allows exactly one more turn past a spent budget (POST
// /v1/budgets/override). A budget that is not spent is an *Error with code
// CONFLICT, details.reason BUDGET_NOT_EXCEEDED.
func (c *Client) OverrideBudget(ctx context.Context, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	var out struct {
		Override hub.BudgetOverride `json:"override"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/budgets/override", body: req}, &out)
	return out.Override, err
}
