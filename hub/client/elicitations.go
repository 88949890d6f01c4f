package client

import (
	"context"
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// ElicitationsPage is one page of the agents' questions, newest first
// (GET /v1/elicitations?status&decidedBy&agent&threadId&from&to&limit&cursor),
// as PermissionsPage.
func (c *Client) ElicitationsPage(ctx context.Context, q hub.ElicitationQuery) (hub.ElicitationPage, error) {
	var out hub.ElicitationPage
	err := c.call(ctx, request{method: http.MethodGet, path: "/v1/elicitations", query: auditQuery(hub.PermissionQuery(q))}, &out)
	return out, err
}

// AnswerElicitation answers an agent's question (POST
// /v1/elicitations/{id}) and returns it as it ended. Content the schema
// refuses is an *Error INVALID_ARGUMENT whose details.field names the
// field; one no longer pending is CONFLICT.
func (c *Client) AnswerElicitation(ctx context.Context, id string, a hub.ElicitationAnswer) (hub.Elicitation, error) {
	var out struct {
		Elicitation hub.Elicitation `json:"elicitation"`
	}
	err := c.call(ctx, request{method: http.MethodPost, path: "/v1/elicitations/" + esc(id), body: a}, &out)
	return out.Elicitation, err
}
