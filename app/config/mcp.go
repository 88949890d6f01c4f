package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// MCP servers sit at three levels of the config, each a map by server
// name (acp.MCPServers): mcpServers (every agent), agents.<id>.mcpServers
// and folders.<glob>.mcpServers, merged by name in that order (a folder's
// most specific glob last); a null entry removes a server an earlier
// level set. Like folders they are read from the YAML itself, not through
// viper, which would lowercase server names and env and header keys.

// mcpType is acp.MCPServers' reflect type: decodeOption leaves values of
// it empty and decodeMCP fills them from the YAML.
var mcpType = reflect.TypeOf(acp.MCPServers(nil))

// decodeMCP fills c.MCPServers and every agent's MCPServers from data (the
// config file; nil when there is none).
func decodeMCP(data []byte, c *Config) error {
	var raw struct {
		MCPServers acp.MCPServers `yaml:"mcpServers"`
		Agents     map[string]struct {
			MCPServers acp.MCPServers `yaml:"mcpServers"`
		} `yaml:"agents"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("mcpServers: %w", err)
	}
	c.MCPServers = raw.MCPServers
	ids := slices.Sorted(maps.Keys(raw.Agents))
	for _, id := range ids {
		servers := raw.Agents[id].MCPServers
		if servers == nil {
			continue
		}
		key := strings.ToLower(id)
		if c.Agents == nil {
			c.Agents = map[string]acp.AgentConfig{}
		}
		a := c.Agents[key] // viper may drop an agent whose only key holds nulls
		a.MCPServers = servers
		c.Agents[key] = a
	}
	return nil
}

// validateMCP checks the MCP servers of every level.
func (c Config) validateMCP() error {
	if err := c.MCPServers.Validate("mcpServers"); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(c.Agents)) {
		if err := c.Agents[id].MCPServers.Validate("agents." + id + ".mcpServers"); err != nil {
			return err
		}
	}
	globs := slices.Sorted(maps.Keys(c.Folders))
	for _, g := range globs {
		if err := c.Folders[g].MCPServers.Validate(fmt.Sprintf("folders.%q.mcpServers", g)); err != nil {
			return err
		}
	}
	return nil
}

// patchMCPServers applies a settings patch's mcpServers to the
// mcpServers mapping of parent (the root, an agent's entry or a folder's
// section), by exact name, sorted: a server is replaced whole, null
// removes it, the others stay; an empty mcpServers is removed. The result
// is checked like any config (parse).
func patchMCPServers(root *yaml.Node, servers map[string]*hub.MCPServerPatch) error {
	m := mapping(root, "mcpServers")
	names := slices.Sorted(maps.Keys(servers))
	for _, name := range names {
		p := servers[name]
		if p == nil {
			removeExact(m, name)
			continue
		}
		c := acp.MCPServerConfig{Type: p.Type, Command: p.Command, Args: p.Args, Env: p.Env, URL: p.URL, Headers: p.Headers}
		var v yaml.Node
		if err := v.Encode(c); err != nil {
			return err
		}
		dropEmpty(&v)
		replaced := false
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == name {
				m.Content[i+1] = &v
				replaced = true
				break
			}
		}
		if !replaced {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, &v)
		}
	}
	if len(m.Content) == 0 {
		removeKey(root, "mcpServers")
	}
	return nil
}

// dropEmpty removes the keys of mapping n whose values are empty.
func dropEmpty(n *yaml.Node) {
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		v := n.Content[i+1]
		if v.Kind == yaml.ScalarNode && v.Value == "" || (v.Kind == yaml.SequenceNode || v.Kind == yaml.MappingNode) && len(v.Content) == 0 || isNullNode(v) {
			n.Content = slices.Delete(n.Content, i, i+2)
		}
	}
}

// mcpSettings lists c's top-level MCP servers without env and header
// values.
func mcpSettings(c Config) []hub.MCPServerSetting { return serverSettings(c.MCPServers) }

// serverSettings lists servers without env and header values (a null
// entry, which removes a server of an earlier level, is left out).
func serverSettings(servers acp.MCPServers) []hub.MCPServerSetting {
	var out []hub.MCPServerSetting
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		if s == nil {
			continue
		}
		st := hub.MCPServerSetting{Name: name, Type: s.Type, Command: s.Command, Args: slices.Clone(s.Args), URL: s.URL}
		for k := range s.Env {
			st.EnvKeys = append(st.EnvKeys, k)
		}
		for k := range s.Headers {
			st.HeaderKeys = append(st.HeaderKeys, k)
		}
		sort.Strings(st.EnvKeys)
		sort.Strings(st.HeaderKeys)
		out = append(out, st)
	}
	return out
}

// patchFolders applies a settings patch's folders to the root mapping,
// globs matched exactly, sorted: a folder's MCP servers merged by name
// (patchMCPServers), a null folder removed whole; a section left empty is
// removed, and so is an empty folders:.
func patchFolders(root *yaml.Node, folders map[string]*hub.FolderPatch) error {
	globs := slices.Sorted(maps.Keys(folders))
	for _, g := range globs {
		f := folders[g]
		if f == nil {
			if sec := yamlValue(root, "folders"); sec != nil && sec.Kind == yaml.MappingNode {
				removeExact(sec, g)
			}
			continue
		}
		sec := mapping(root, "folders")
		var entry *yaml.Node
		for i := 0; i+1 < len(sec.Content); i += 2 {
			if sec.Content[i].Value == g {
				if sec.Content[i+1].Kind != yaml.MappingNode {
					sec.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				}
				entry = sec.Content[i+1]
			}
		}
		if entry == nil {
			entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			sec.Content = append(sec.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: g}, entry)
		}
		if err := patchMCPServers(entry, f.MCPServers); err != nil {
			return err
		}
		patchInstructions(entry, f.Instructions) // instructions.go
		if len(entry.Content) == 0 {
			removeExact(sec, g)
		}
	}
	if sec := yamlValue(root, "folders"); sec != nil && sec.Kind == yaml.MappingNode && len(sec.Content) == 0 {
		removeKey(root, "folders")
	}
	return nil
}

// folderSettings lists c's folder sections that hold MCP servers or
// instructions.
func folderSettings(c Config) []hub.FolderSettings {
	globs := slices.Sorted(maps.Keys(c.Folders))
	var out []hub.FolderSettings
	for _, g := range globs {
		ms, in := serverSettings(c.Folders[g].MCPServers), instructionsSetting(c.Folders[g].Instructions)
		if len(ms) > 0 || in != nil {
			out = append(out, hub.FolderSettings{Glob: g, MCPServers: ms, Instructions: in})
		}
	}
	return out
}
