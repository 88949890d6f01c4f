package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
)

// Session defaults (agents.<id>.defaults: {mode, options: {<configId>:
// value}}; ADR 0032). The mode goes through viper; the options are read
// from the YAML itself (decodeDefaults), since viper would lowercase the
// option ids, which the agent compares exactly.

// optionValuesType is acp.OptionValues' reflect type: decodeOption leaves
// values of it empty and decodeDefaults fills them from the YAML.
var optionValuesType = reflect.TypeOf(acp.OptionValues(nil))

// decodeDefaults fills every agent's Defaults.Options from data (the config
// file; nil when there is none), ids as written, and checks the mode. A
// value must be a string, a boolean or a number (kept as written), a mode
// a non-blank id; anything else is an error with its key and line.
func decodeDefaults(data []byte, agents map[string]acp.AgentConfig) error {
	if len(agents) == 0 || data == nil {
		return nil
	}
	var raw struct {
		Agents map[string]struct {
			Defaults struct {
				Mode    yaml.Node `yaml:"mode"`
				Options yaml.Node `yaml:"options"`
			} `yaml:"defaults"`
		} `yaml:"agents"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(raw.Agents)) {
		m, n := raw.Agents[id].Defaults.Mode, raw.Agents[id].Defaults.Options
		key := strings.ToLower(id)
		a, ok := agents[key]
		if !ok || a.Defaults == nil {
			continue
		}
		if m.Kind != 0 && m.Tag != "!!null" && (m.Kind != yaml.ScalarNode || strings.TrimSpace(m.Value) == "" || strings.TrimSpace(m.Value) != m.Value) {
			return fmt.Errorf("line %d: agents.%s.defaults.mode: must be a mode id the agent offers, such as default", m.Line, id)
		}
		if n.Kind == 0 || n.Tag == "!!null" {
			continue
		}
		where := fmt.Sprintf("line %d: agents.%s.defaults.options", n.Line, id)
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: must be a map of config option ids to values", where)
		}
		opts := make(acp.OptionValues, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
				return fmt.Errorf("line %d: agents.%s.defaults.options.%s: must be a value the agent offers (a string or true/false)", v.Line, id, k.Value)
			}
			if strings.TrimSpace(k.Value) == "" {
				return fmt.Errorf("line %d: agents.%s.defaults.options: an option id must not be empty", k.Line, id)
			}
			opts[k.Value] = v.Value
		}
		d := *a.Defaults
		d.Options = opts
		a.Defaults = &d
		agents[key] = a
	}
	return nil
}
