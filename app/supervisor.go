package app

import (
	"log/slog"

	"github.com/switchboard-hub/switchboard/acp"
)

// supervisedAgents are the options of every agent the hub starts: each
// agent and each terminal command behind a supervisor (this binary,
// re-executed: see Main), so that their process trees die with the hub
// even when it is SIGKILLed (ADR 0029). Where supervisors do not run, or
// the executable cannot be found, commands start directly as before.
func supervisedAgents(log *slog.Logger) acp.AgentOptions {
	sup, err := acp.NewSupervisor()
	if err != nil {
		log.Warn("agents run without a supervisor: they may outlive a crash of the hub", "err", err)
	}
	opts := acp.AgentOptions{Process: acp.ProcessOptions{Logger: log, Supervisor: sup}}
	opts.Client.Terminals.Supervisor = sup
	return opts
}
