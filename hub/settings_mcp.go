package hub

// MCPServerSetting is one top-level MCP server (config mcpServers.<name>)
// as the settings show it: its transport and where it runs, with the
// names of its env variables and headers but never their values.
type MCPServerSetting struct {
	Name       string   `json:"name"`
	Type       string   `json:"type,omitempty"` // "" (stdio), http or sse
	Command    string   `json:"command,omitempty"`
	Args       []string `json:"args,omitempty"`
	URL        string   `json:"url,omitempty"`
	EnvKeys    []string `json:"envKeys,omitempty"`
	HeaderKeys []string `json:"headerKeys,omitempty"`
}

// MCPServerPatch is one server of SettingsPatch.MCPServers: it replaces
// the server of that name whole ({command, args, env} or {type, url,
// headers}); the config's checks apply (a 400 names the field).
type MCPServerPatch struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}
