package hub

// Services is everything a hub can do, as the one value its adapters take
// (hub/httpapi's New, the window's bindings in app): the Service every hub
// has, and each optional capability as a field of its own. A nil field
// means the hub has no such capability: every route and binding of it
// answers NOT_FOUND with that capability's error below (ErrNoWork, …),
// and nothing asserts the Service to find one.
//
// The engine fills Service, Work and Usage (engine.Engine.Services); the
// app adds what lives beside the engine (the settings over the config
// file, agent installs and sign-in, hub/agentsetup). hub/client's Remote
// fills every field over the HTTP API, so a hub on another machine is one
// more Services value, and one contract suite (hub/contract) holds both
// to the same answers.
//
// A new capability is one field here (its interface in a file named for
// it, its NOT_FOUND error below) and one line of wiring where the hub is
// put together (app's startHub); the adapters then reach it as
// svcs.<Field>, checking for nil.
type Services struct {
	// Service is the hub's core: threads, turns, events, permissions,
	// rules, search, the shelf, agent sessions, questions. Required.
	Service Service
	// Work: worktree threads, merges, changes and checkpoints.
	Work WorkService
	// Usage: the usage ledger and budget overrides.
	Usage UsageService
	// Settings: the settings in force, read and changed.
	Settings SettingsService
	// Installer: agents and Node installed into the data dir; the agent
	// list's Node status.
	Installer AgentInstaller
	// AgentAuth: agents signed in (an agent method or a terminal).
	AgentAuth AgentAuth
	// Queue: the threads' queued prompts (queue.go).
	Queue QueueService
	// HostHubs: each host's folders and agents (issue 30, hosthubs.go).
	HostHubs HostHubs

	// Hosts: other machines' hubs reached over the user's ssh (hub/hosts).
	Hosts HostService
}

// The NOT_FOUND answers of a capability a hub lacks (a nil field of
// Services), the same through every adapter.
var (
	ErrNoWork      = Errorf(CodeNotFound, "worktrees and checkpoints are not available")
	ErrNoUsage     = Errorf(CodeNotFound, "usage is not available")
	ErrNoSettings  = Errorf(CodeNotFound, "settings are not available")
	ErrNoInstaller = Errorf(CodeNotFound, "installing agents is not available")
	ErrNoAgentAuth = Errorf(CodeNotFound, "signing agents in is not available")
)
