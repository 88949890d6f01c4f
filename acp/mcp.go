package acp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// MCP transports, as ACP names them (stdio has no "type" on the wire).
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
	MCPSSE   = "sse"
)

// MCPServerConfig is one MCP server as the config file writes it, under a
// name: a program on stdio ({command, args, env}) or a remote server
// ({type: http|sse, url, headers}). Env and header names keep their case.
type MCPServerConfig struct {
	Type    string            `yaml:"type" json:"type,omitempty"`
	Command string            `yaml:"command" json:"command,omitempty"`
	Args    []string          `yaml:"args" json:"args,omitempty"`
	Env     map[string]string `yaml:"env" json:"env,omitempty"`
	URL     string            `yaml:"url" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
}

// MCPServers is a layer of MCP servers by name (the config's top level,
// an agent's, a folder's). A nil entry removes a server of that name that
// an earlier layer set.
type MCPServers map[string]*MCPServerConfig

// Transport is c's transport: MCPStdio, MCPHTTP or MCPSSE.
func (c MCPServerConfig) Transport() string {
	if c.Type == "" {
		return MCPStdio
	}
	return c.Type
}

// Validate checks c, named name, as field (the config path, for the
// message) writes it.
func (c MCPServerConfig) Validate(field string) error {
	switch c.Transport() {
	case MCPStdio:
		if strings.TrimSpace(c.Command) == "" {
			return fmt.Errorf("%s: a stdio MCP server needs a command", field)
		}
		if c.URL != "" || c.Headers != nil {
			return fmt.Errorf("%s: url and headers are for type http or sse", field)
		}
	case MCPHTTP, MCPSSE:
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s.url: %q is not an http(s) URL", field, c.URL)
		}
		if c.Command != "" || c.Args != nil || c.Env != nil {
			return fmt.Errorf("%s: command, args and env are for stdio servers", field)
		}
	default:
		return fmt.Errorf("%s.type: %q is not stdio, http or sse", field, c.Type)
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("%s.env: %q is not a variable name", field, k)
		}
	}
	for k := range c.Headers {
		if k == "" || strings.ContainsAny(k, ": \r\n\x00") {
			return fmt.Errorf("%s.headers: %q is not a header name", field, k)
		}
	}
	return nil
}

// Validate checks every server of s; field is where s sits in the config
// ("mcpServers", "agents.claude.mcpServers").
func (s MCPServers) Validate(field string) error {
	for _, name := range sortedKeys(s) {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("%s: a server needs a name", field)
		}
		if c := s[name]; c != nil {
			if err := c.Validate(fmt.Sprintf("%s.%s", field, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// nameValue is ACP's EnvVariable and HttpHeader.
type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func pairs(m map[string]string) []nameValue {
	out := make([]nameValue, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, nameValue{k, m[k]})
	}
	return out
}

// ACP returns c, named name, in the shape of session/new's mcpServers:
// {name, command, args, env: [{name, value}]} or {type, name, url,
// headers: [{name, value}]} (args, env and headers always present, as the
// schema requires).
func (c MCPServerConfig) ACP(name string) MCPServer {
	var v any
	if c.Transport() == MCPStdio {
		args := c.Args
		if args == nil {
			args = []string{}
		}
		v = struct {
			Name    string      `json:"name"`
			Command string      `json:"command"`
			Args    []string    `json:"args"`
			Env     []nameValue `json:"env"`
		}{name, c.Command, args, pairs(c.Env)}
	} else {
		v = struct {
			Type    string      `json:"type"`
			Name    string      `json:"name"`
			URL     string      `json:"url"`
			Headers []nameValue `json:"headers"`
		}{c.Type, name, c.URL, pairs(c.Headers)}
	}
	b, _ := json.Marshal(v) // strings and slices only
	return b
}

// MergeMCPServers lays the layers over each other, by name, first to last
// (a later one replaces a server of the same name; a nil entry removes
// it), and returns the result as ACP servers sorted by name.
func MergeMCPServers(layers ...MCPServers) []MCPServer {
	merged := map[string]*MCPServerConfig{}
	for _, l := range layers {
		for name, c := range l {
			if c == nil {
				delete(merged, name)
				continue
			}
			merged[name] = c
		}
	}
	out := make([]MCPServer, 0, len(merged))
	for _, name := range sortedKeys(merged) {
		out = append(out, merged[name].ACP(name))
	}
	return out
}

// MCPServerInfo describes an ACP MCP server: its name and transport.
type MCPServerInfo struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
}

// DescribeMCPServer reads the name and transport of s, an ACP MCP server
// object; an error when s is not one (no name, an unknown type, a stdio
// server without command or an http/sse one without url).
func DescribeMCPServer(s MCPServer) (MCPServerInfo, error) {
	var v struct {
		Type    string `json:"type"`
		Name    string `json:"name"`
		Command string `json:"command"`
		URL     string `json:"url"`
	}
	if err := json.Unmarshal(s, &v); err != nil {
		return MCPServerInfo{}, fmt.Errorf("an MCP server must be an object: %v", err)
	}
	if strings.TrimSpace(v.Name) == "" {
		return MCPServerInfo{}, fmt.Errorf("an MCP server needs a name")
	}
	info := MCPServerInfo{Name: v.Name, Transport: v.Type}
	switch v.Type {
	case "", MCPStdio:
		info.Transport = MCPStdio
		if v.Command == "" {
			return info, fmt.Errorf("MCP server %q: a stdio server needs a command", v.Name)
		}
	case MCPHTTP, MCPSSE:
		if v.URL == "" {
			return info, fmt.Errorf("MCP server %q: an %s server needs a url", v.Name, v.Type)
		}
	default:
		return info, fmt.Errorf("MCP server %q: unknown type %q", v.Name, v.Type)
	}
	return info, nil
}

// MCPCapabilities is the agent's agentCapabilities.mcpCapabilities: which
// transports besides stdio (always supported) it accepts.
type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// MCP returns the MCP transports the agent accepts.
func (c AgentCapabilities) MCP() MCPCapabilities {
	var m MCPCapabilities
	if advertised(c.MCPCapabilities) {
		_ = json.Unmarshal(c.MCPCapabilities, &m) // malformed: stdio only
	}
	return m
}

// Accepts reports whether an agent with c takes a server of transport t.
func (c MCPCapabilities) Accepts(t string) bool {
	switch t {
	case MCPStdio:
		return true
	case MCPHTTP:
		return c.HTTP
	case MCPSSE:
		return c.SSE
	}
	return false
}

// MCPSkip is a server not passed to an agent, and why.
type MCPSkip struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Reason    string `json:"reason"`
}

// FilterMCPServers splits servers into those an agent with caps accepts,
// in order, and those it does not (or that are malformed), with the
// reason.
func FilterMCPServers(servers []MCPServer, caps MCPCapabilities) ([]MCPServer, []MCPSkip) {
	kept := make([]MCPServer, 0, len(servers))
	var skipped []MCPSkip
	for _, s := range servers {
		info, err := DescribeMCPServer(s)
		switch {
		case err != nil:
			skipped = append(skipped, MCPSkip{Name: info.Name, Transport: info.Transport, Reason: err.Error()})
		case !caps.Accepts(info.Transport):
			skipped = append(skipped, MCPSkip{Name: info.Name, Transport: info.Transport,
				Reason: fmt.Sprintf("the agent does not accept %s MCP servers (mcpCapabilities.%s)", info.Transport, info.Transport)})
		default:
			kept = append(kept, s)
		}
	}
	return kept, skipped
}

// MergeMCPList adds extra (ACP servers, e.g. an editor's) to base by name:
// one of extra replaces one of base with the same name; the rest of extra
// follows in its order.
func MergeMCPList(base, extra []MCPServer) []MCPServer {
	if len(extra) == 0 {
		return base
	}
	names := map[string]bool{}
	for _, s := range extra {
		if info, err := DescribeMCPServer(s); err == nil {
			names[info.Name] = true
		}
	}
	out := make([]MCPServer, 0, len(base)+len(extra))
	for _, s := range base {
		if info, err := DescribeMCPServer(s); err == nil && names[info.Name] {
			continue
		}
		out = append(out, s)
	}
	return append(out, extra...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
