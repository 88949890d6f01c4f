package client

import (
	"context"
	"net/http"

	"github.com/switchboard-hub/switchboard/hub"
)

// Remote's optional capabilities: work, usage, settings, installs and
// sign-in, each over the routes hub/httpapi serves them on.

// DeleteThreadWith implements hub.WorkService.
func (r *Remote) DeleteThreadWith(ctx context.Context, c hub.Caller, id string, o hub.DeleteOptions) error {
	return r.c.DeleteThreadWith(as(ctx, c), id, o)
}

// MergeThread implements hub.WorkService.
func (r *Remote) MergeThread(ctx context.Context, c hub.Caller, id string) (hub.MergeResult, error) {
	return r.c.MergeThread(as(ctx, c), id)
}

// GitFolder implements hub.WorkService.
func (r *Remote) GitFolder(ctx context.Context, c hub.Caller, path string) (hub.GitFolder, error) {
	return r.c.GitFolder(as(ctx, c), path)
}

// DiscardThread implements hub.WorkService.
func (r *Remote) DiscardThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	return r.c.DiscardThread(as(ctx, c), id)
}

// Changes implements hub.WorkService.
func (r *Remote) Changes(ctx context.Context, c hub.Caller, id string, q hub.ChangesQuery) (hub.Changes, error) {
	return r.c.Changes(as(ctx, c), id, q)
}

// RevertChanges implements hub.WorkService.
func (r *Remote) RevertChanges(ctx context.Context, c hub.Caller, id string, rq hub.RevertRequest) (hub.RestoreResult, error) {
	return r.c.RevertChanges(as(ctx, c), id, rq)
}

// ListCheckpoints implements hub.WorkService.
func (r *Remote) ListCheckpoints(ctx context.Context, c hub.Caller, id string) ([]hub.Checkpoint, error) {
	return r.c.Checkpoints(as(ctx, c), id)
}

// RestoreCheckpoint implements hub.WorkService.
func (r *Remote) RestoreCheckpoint(ctx context.Context, c hub.Caller, id, turnID string) (hub.RestoreResult, error) {
	return r.c.RestoreCheckpoint(as(ctx, c), id, turnID)
}

// Usage implements hub.UsageService (GET /v1/usage).
func (r *Remote) Usage(ctx context.Context, c hub.Caller, q hub.UsageQuery) (hub.UsageReport, error) {
	return r.c.Usage(as(ctx, c), q)
}

// OverrideBudget implements hub.UsageService (POST /v1/budgets/override).
func (r *Remote) OverrideBudget(ctx context.Context, c hub.Caller, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	return r.c.OverrideBudget(as(ctx, c), req)
}

// Settings implements hub.SettingsService (GET /v1/settings).
func (r *Remote) Settings(ctx context.Context) (hub.Settings, error) { return r.c.Settings(ctx) }

// UpdateSettings implements hub.SettingsService (PATCH /v1/settings).
func (r *Remote) UpdateSettings(ctx context.Context, p hub.SettingsPatch) (hub.Settings, error) {
	return r.c.UpdateSettings(ctx, p)
}

// InstallAgent implements hub.AgentInstaller.
func (r *Remote) InstallAgent(ctx context.Context, id, version string) error {
	return r.c.InstallAgent(ctx, id, version)
}

// RemoveAgent implements hub.AgentInstaller.
func (r *Remote) RemoveAgent(ctx context.Context, id string) error { return r.c.RemoveAgent(ctx, id) }

// InstallNode implements hub.AgentInstaller.
func (r *Remote) InstallNode(ctx context.Context) error { return r.c.InstallNode(ctx) }

// Node implements hub.AgentInstaller: the node of GET /v1/agents (the zero
// NodeStatus when the hub has no installer or cannot be asked).
func (r *Remote) Node(ctx context.Context) hub.NodeStatus {
	var out struct {
		Node *hub.NodeStatus `json:"node"`
	}
	if err := r.c.call(ctx, request{method: http.MethodGet, path: "/v1/agents"}, &out); err != nil || out.Node == nil {
		return hub.NodeStatus{}
	}
	return *out.Node
}

// RefreshRegistry implements hub.AgentInstaller: nothing to do here, the
// hub behind refreshes its registry when its agents are listed
// (ListAgents).
func (r *Remote) RefreshRegistry() {}

// SignIn implements hub.AgentAuth (POST /v1/agents/{id}/auth).
func (r *Remote) SignIn(ctx context.Context, agentID, methodID string) (hub.SignInResult, error) {
	return r.c.SignInAgent(ctx, agentID, methodID)
}

// WatchAuth implements hub.AgentAuth.
func (r *Remote) WatchAuth(ctx context.Context, id string) (<-chan hub.AuthFrame, error) {
	return r.c.WatchAuth(ctx, id)
}

// AuthInput implements hub.AgentAuth.
func (r *Remote) AuthInput(ctx context.Context, id, data string) error {
	return r.c.AuthInput(ctx, id, data)
}

// AuthResize implements hub.AgentAuth.
func (r *Remote) AuthResize(ctx context.Context, id string, cols, rows int) error {
	return r.c.AuthResize(ctx, id, cols, rows)
}

// CloseAuth implements hub.AgentAuth.
func (r *Remote) CloseAuth(ctx context.Context, id string) error { return r.c.CloseAuth(ctx, id) }

// SignOut implements hub.AgentAuth (POST /v1/agents/{id}/logout).
func (r *Remote) SignOut(ctx context.Context, agentID string) error {
	return r.c.SignOutAgent(ctx, agentID)
}

// CommitSuggestion implements hub.WorkService.
func (r *Remote) CommitSuggestion(ctx context.Context, c hub.Caller, id string) (hub.CommitSuggestion, error) {
	return r.c.CommitSuggestion(as(ctx, c), id)
}

// CommitThread implements hub.WorkService.
func (r *Remote) CommitThread(ctx context.Context, c hub.Caller, id string, rq hub.CommitRequest) (hub.CommitResult, error) {
	return r.c.CommitThread(as(ctx, c), id, rq)
}

// PushThread implements hub.WorkService.
func (r *Remote) PushThread(ctx context.Context, c hub.Caller, id string) (hub.PushResult, error) {
	return r.c.PushThread(as(ctx, c), id)
}

// CancelSetup implements hub.WorkService.
func (r *Remote) CancelSetup(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	return r.c.CancelSetup(as(ctx, c), id)
}
