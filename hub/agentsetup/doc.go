// Package agentsetup gets agents ready to run, beside the engine: it
// installs npm-distributed agents and Node into the data dir and keeps the
// catalogue's view of them (Installs, hub.AgentInstaller; the ACP registry's
// agents, registry.go; without a running hub, Standalone), and signs agents
// in (SignIns, hub.AgentAuth: an agent's own method through the engine, or
// its program in a terminal, a PTY, here).
//
// It imports hub, acp and acp/install and nothing else of the module: what
// it needs of the running hub (the engine's calls, the config in force)
// comes as plain values and func fields, wired by app. Only app imports it
// (app/deps_test.go).
package agentsetup
