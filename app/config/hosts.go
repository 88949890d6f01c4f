package config

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
	"go.yaml.in/yaml/v3"
)

// HostConfig is one host of the config's hosts.<name> (ADR 0045): the
// ssh destination the link passes to the user's ssh.
type HostConfig struct {
	SSH string `mapstructure:"ssh"`
}

// validateHosts refuses a host name or ssh value the API would refuse
// (hub.CheckHostName, hub.CheckHostSSH), naming the key.
func validateHosts(hosts map[string]HostConfig) error {
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		if err := hub.CheckHostName(name); err != nil {
			return fmt.Errorf("hosts.%s: %s", name, hub.ErrorMessage(err))
		}
		if err := hub.CheckHostSSH(hosts[name].SSH); err != nil {
			return fmt.Errorf("hosts.%s.ssh: %s", name, hub.ErrorMessage(err))
		}
	}
	return nil
}

// HostList is c's hosts as name → ssh.
func HostList(c Config) map[string]string {
	out := make(map[string]string, len(c.Hosts))
	for n, h := range c.Hosts {
		out[n] = h.SSH
	}
	return out
}

// SetHosts makes the config file's hosts: exactly hosts (name → ssh),
// sorted by name, the rest of the file as it was; an empty list removes
// the key. Its errors are those of UpdateSettings (the same edit path,
// checked the same way, applied before it returns).
func (s *Settings) SetHosts(ctx context.Context, hosts map[string]string) error {
	return s.editYAML(func(root *yaml.Node) error {
		removeKey(root, "hosts")
		if len(hosts) == 0 {
			return nil
		}
		sec := mapping(root, "hosts")
		for _, name := range slices.Sorted(maps.Keys(hosts)) {
			entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			entry.Content = append(entry.Content, str("ssh"), str(hosts[name]))
			sec.Content = append(sec.Content, str(name), entry)
		}
		return nil
	})
}

func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
