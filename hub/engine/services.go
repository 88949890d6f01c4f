package engine

import "github.com/switchboard-hub/switchboard/hub"

// Services is the engine as the adapters take it: the Service, the work
// (worktrees, merges, checkpoints) and the usage ledger. What lives beside
// the engine (settings, agent installs, sign-in) the caller adds.
func (e *Engine) Services() hub.Services {
	return hub.Services{Service: e, Work: e, Usage: e, Queue: e}
}
