package hub

import "encoding/json"

// Agent statuses.
const (
	AgentAvailable   = "available"
	AgentUnavailable = "unavailable"
)

// Agent is an agent the hub can start.
type Agent struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Command string `json:"command"`
	// Version (agentInfo.version) and Capabilities (the agentCapabilities
	// object, raw) are from the agent's last initialize answer: absent
	// until the hub has started or probed the agent since it started.
	Version      string          `json:"version,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// ProbeError is why the hub's last probe of the agent (initialize
	// only, at start or when the agent was added or changed) failed; absent
	// once a probe or a start succeeded. Extension of API.md.
	ProbeError *AgentProbeError `json:"probeError,omitempty"`
	Reason     string           `json:"reason,omitempty"`
	// Install is how to install the agent (a command such as "npm install
	// -g …", or where to get it), from the catalogue; absent for custom
	// agents. Extension of API.md.
	Install string `json:"install,omitempty"`
	// MCPServers are the MCP servers the config gives the agent's sessions
	// (top level and agents.<id>; folders add theirs per thread), each
	// with why it is skipped when the agent does not accept its
	// transport (known once the agent has been started or probed).
	// Extension of API.md.
	MCPServers []AgentMCPServer `json:"mcpServers,omitempty"`
	// NPM is the npm package the agent installs from (Settings → Agents →
	// Install; POST /v1/agents/{id}/install), when it does; Installed what
	// the hub installed (<data-dir>/agents/<id>), which its command
	// resolves to first; Update the registry's newer latest version, when
	// there is one (checked at most daily). Extensions of API.md.
	NPM       *AgentPackage   `json:"npm,omitempty"`
	Installed *AgentInstalled `json:"installed,omitempty"`
	Update    string          `json:"update,omitempty"`
	// AuthMethods are the sign-in methods the agent advertised in its
	// last initialize answer, raw ({id, name, description?, type?:
	// agent|terminal|env_var, args?, env?, varName?, vars?}): POST
	// /v1/agents/{id}/auth runs one. Extension of API.md.
	AuthMethods json.RawMessage `json:"authMethods,omitempty" ts_type:"any[]"`
	// Defaults are the session defaults in force for the agent: the
	// catalogue's own (Qwen Code's mode "default") with the config's
	// agents.<id>.defaults over them (ADR 0032). Extension of API.md.
	Defaults *SessionDefaults `json:"defaults,omitempty"`
	// Icon is the agent's logo from the ACP registry as a data: URL (an
	// SVG, PNG or WebP of at most 64 KB the hub fetched once and keeps);
	// absent: the client shows a monogram. Extension of API.md.
	Icon string `json:"icon,omitempty"`
}

// AgentProbeError is why a probe of an agent failed: a sentence, and the
// end of what the agent printed on stderr (at most 2 KB), if anything.
type AgentProbeError struct {
	Message string `json:"message"`
	Stderr  string `json:"stderr,omitempty"`
}

// AgentPackage is an agent's npm package: the version the catalogue pins
// and the Node major it needs.
type AgentPackage struct {
	Package string `json:"package"`
	Version string `json:"version"`
	MinNode int    `json:"minNode,omitempty"`
}

// AgentInstalled is an agent the hub installed.
type AgentInstalled struct {
	Version string `json:"version"`
	Path    string `json:"path"`
}

// AgentMCPServer is one MCP server the config gives an agent.
type AgentMCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // stdio, http or sse
	Skipped   string `json:"skipped,omitempty"`
}
