//go:build linux

package systest

import (
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/acp/acptest/fakemodel"
)

// claudeOffline is Claude Code (claude-agent-acp, from .tools; it fails,
// saying to run `make tools`, when missing) as a test hub's custom agent,
// answering from the fake model server it returns; the model's side
// requests (a session title) are answered for it.
func claudeOffline(t *testing.T) (agentConf, *fakemodel.Server) {
	t.Helper()
	model := fakemodel.Start(t)
	model.SetSide(fakemodel.NoTools, fakemodel.Text(`{"title":"Fake session"}`))
	ra := acptest.Claude(t, acptest.ToolsDir(t), model.URL)
	env := map[string]string{}
	for _, kv := range ra.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return agentConf{Name: "Claude (offline)", Command: ra.Path, Args: ra.Args, Env: env}, model
}
