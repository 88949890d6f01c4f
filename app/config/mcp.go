package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
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
	ids := make([]string, 0, len(raw.Agents))
	for id := range raw.Agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
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
	for _, id := range sortedIDs(c.Agents) {
		if err := c.Agents[id].MCPServers.Validate("agents." + id + ".mcpServers"); err != nil {
			return err
		}
	}
	globs := make([]string, 0, len(c.Folders))
	for g := range c.Folders {
		globs = append(globs, g)
	}
	sort.Strings(globs)
	for _, g := range globs {
		if err := c.Folders[g].MCPServers.Validate(fmt.Sprintf("folders.%q.mcpServers", g)); err != nil {
			return err
		}
	}
	return nil
}

func sortedIDs(m map[string]acp.AgentConfig) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
