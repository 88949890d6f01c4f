package config

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/hub"
)

// patchConfigYAML applies p to data, the content of a config file (nil:
// none yet), and returns the new content. It edits the YAML node tree, so
// the file's comments, key order and keys p does not name are kept; keys
// are matched case-insensitively, as viper reads them (environment
// variable names exactly). The result is re-indented with the file's own
// indentation (2 spaces for a new file). It does not validate the result.
func patchConfigYAML(data []byte, p hub.SettingsPatch) ([]byte, error) {
	return editConfigYAML(data, func(root *yaml.Node) error { return applyPatch(root, p) })
}

// editConfigYAML parses data (the config file, comments kept), lets edit
// change the root mapping, and returns the new content re-indented with
// the file's own indentation (2 spaces for a new file).
func editConfigYAML(data []byte, edit func(root *yaml.Node) error) ([]byte, error) {
	var doc yaml.Node
	if len(data) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, hub.Errorf(hub.CodeConflict, "the config file does not parse: %v", err)
		}
	}
	var prefix []byte
	if doc.Kind == 0 {
		// Nothing but comments (yaml drops them): keep them on top.
		prefix = append([]byte(nil), data...)
		if len(prefix) > 0 && prefix[len(prefix)-1] != '\n' {
			prefix = append(prefix, '\n')
		}
		doc = yaml.Node{Kind: yaml.DocumentNode}
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{}}
	}
	root := doc.Content[0]
	if isNullNode(root) {
		*root = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: root.HeadComment, LineComment: root.LineComment, FootComment: root.FootComment}
	}
	if root.Kind != yaml.MappingNode {
		return nil, hub.Errorf(hub.CodeConflict, "the config file is not a YAML mapping of keys")
	}
	if err := edit(root); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(prefix)
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(indentOf(data))
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// applyPatch applies a settings patch to the config's root mapping.
func applyPatch(root *yaml.Node, p hub.SettingsPatch) error {
	patchPermissions(root, p.Permissions)
	if n := p.Notifications; n != nil {
		if n.Enabled != nil {
			setScalar(mapping(root, "notifications"), "enabled", boolText(*n.Enabled), "!!bool")
		}
		for _, f := range []struct {
			key string
			v   *bool
		}{{"turnCompleted", n.TurnCompleted}, {"permission", n.Permission}, {"question", n.Question}, {"error", n.Error}, {"budget", n.Budget}} {
			if f.v != nil {
				setScalar(mapping(root, "notifications"), f.key, boolText(*f.v), "!!bool")
			}
		}
	}
	if p.Tray != nil && p.Tray.Autostart != nil {
		setScalar(mapping(root, "tray"), "autostart", boolText(*p.Tray.Autostart), "!!bool")
	}
	if p.Redaction != nil && p.Redaction.Enabled != nil {
		setScalar(mapping(root, "redaction"), "enabled", boolText(*p.Redaction.Enabled), "!!bool")
	}
	if p.UI != nil && p.UI.Theme != nil {
		setScalar(mapping(root, "ui"), "theme", *p.UI.Theme, "!!str")
	}
	if len(p.Agents) > 0 {
		if err := patchAgents(root, p.Agents); err != nil {
			return err
		}
	}
	if len(p.MCPServers) > 0 {
		if err := patchMCPServers(root, p.MCPServers); err != nil {
			return err
		}
	}
	if len(p.Folders) > 0 {
		if err := patchFolders(root, p.Folders); err != nil {
			return err
		}
	}
	if p.Budgets != nil {
		setNode(root, "budgets", budgetsNode(*p.Budgets))
	}
	return nil
}

// patchAgents applies the agents part of a patch to the root mapping:
// sorted by id, so the result does not depend on map order. An entry
// replaced keeps its mcpServers, merged with the patch's.
func patchAgents(root *yaml.Node, agents map[string]*hub.AgentPatch) error {
	ids := slices.Sorted(maps.Keys(agents))
	for _, id := range ids {
		a := agents[id]
		if a == nil {
			if m := yamlValue(root, "agents"); m != nil && m.Kind == yaml.MappingNode {
				removeKey(m, id)
			}
			continue
		}
		m := mapping(root, "agents")
		if a.OnlyNested() { // the rest of the entry stays as it is
			entry := yamlValue(m, id)
			if entry == nil || entry.Kind != yaml.MappingNode {
				entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				setNode(m, id, entry)
			}
			if len(a.MCPServers) > 0 {
				if err := patchMCPServers(entry, a.MCPServers); err != nil {
					return err
				}
			}
			patchDefaults(entry, a.Defaults)
			patchInstructions(entry, a.Instructions) // instructions.go
			continue
		}
		entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if a.Name != "" {
			setScalar(entry, "name", a.Name, "!!str")
		}
		if a.Command != "" {
			setScalar(entry, "command", a.Command, "!!str")
		}
		if a.Args != nil {
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
			for _, arg := range a.Args {
				seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: arg})
			}
			setNode(entry, "args", seq)
		}
		env := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if old := yamlValue(m, id); old != nil && old.Kind == yaml.MappingNode {
			if oe := yamlValue(old, "env"); oe != nil && oe.Kind == yaml.MappingNode {
				env.Content = slices.Clone(oe.Content)
				env.Style = oe.Style
			}
		}
		envKeys := slices.Sorted(maps.Keys(a.Env))
		for _, k := range envKeys {
			if v := a.Env[k]; v == nil {
				removeExact(env, k)
			} else {
				setExact(env, k, *v)
			}
		}
		if len(env.Content) > 0 {
			setNode(entry, "env", env)
		}
		if a.Enabled != nil {
			setScalar(entry, "enabled", boolText(*a.Enabled), "!!bool")
		}
		if old := yamlValue(m, id); old != nil && old.Kind == yaml.MappingNode {
			if om := yamlValue(old, "mcpServers"); om != nil && om.Kind == yaml.MappingNode {
				setNode(entry, "mcpServers", om)
			}
		}
		if len(a.MCPServers) > 0 {
			if err := patchMCPServers(entry, a.MCPServers); err != nil {
				return err
			}
		}
		if old := yamlValue(m, id); old != nil && old.Kind == yaml.MappingNode {
			if od := yamlValue(old, "defaults"); od != nil {
				setNode(entry, "defaults", od)
			}
			if oi := yamlValue(old, "instructions"); oi != nil {
				setNode(entry, "instructions", oi)
			}
		}
		patchDefaults(entry, a.Defaults)
		patchInstructions(entry, a.Instructions)
		setNode(m, id, entry)
	}
	return nil
}

// patchDefaults replaces the defaults of an agent's entry with d (nil:
// they stay; empty: removed): the mode, and the options by id as written.
func patchDefaults(entry *yaml.Node, d *hub.SessionDefaults) {
	if d == nil {
		return
	}
	if d.IsZero() {
		removeKey(entry, "defaults")
		return
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if d.Mode != "" {
		setScalar(n, "mode", d.Mode, "!!str")
	}
	if len(d.Options) > 0 {
		opts := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range slices.Sorted(maps.Keys(d.Options)) {
			setExact(opts, k, d.Options[k])
		}
		setNode(n, "options", opts)
	}
	setNode(entry, "defaults", n)
}

// yamlValue returns the value of key in mapping m (case-insensitive), or nil.
func yamlValue(m *yaml.Node, key string) *yaml.Node {
	if i := keyIndex(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

// keyIndex returns the index of key's key node in mapping m
// (case-insensitive), or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return i
		}
	}
	return -1
}

// mapping returns the mapping under key in m, making one when the key is
// missing or its value is empty or not a mapping (the key node and its
// comments stay).
func mapping(m *yaml.Node, key string) *yaml.Node {
	if v := yamlValue(m, key); v != nil && v.Kind == yaml.MappingNode {
		return v
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	setNode(m, key, n)
	return n
}

// setNode sets key's value in mapping m to v: in place when the key is
// there (its key node and comments stay), else appended.
func setNode(m *yaml.Node, key string, v *yaml.Node) {
	if i := keyIndex(m, key); i >= 0 {
		old := m.Content[i+1]
		if v.LineComment == "" {
			v.LineComment = old.LineComment
		}
		m.Content[i+1] = v
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// setScalar sets key in mapping m to a scalar of the tag (!!str, !!bool).
// A scalar already there is changed in place, keeping its comments.
func setScalar(m *yaml.Node, key, value, tag string) {
	if v := yamlValue(m, key); v != nil && v.Kind == yaml.ScalarNode {
		v.Value, v.Tag, v.Style = value, tag, 0
		return
	}
	setNode(m, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value})
}

// removeKey deletes key (case-insensitive) and its value from mapping m.
func removeKey(m *yaml.Node, key string) {
	if i := keyIndex(m, key); i >= 0 {
		m.Content = slices.Delete(m.Content, i, i+2)
	}
}

// setExact and removeExact are setScalar and removeKey with the key
// matched exactly (environment variable names are case-sensitive).
func setExact(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, LineComment: m.Content[i+1].LineComment}
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

func removeExact(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

func isNullNode(n *yaml.Node) bool {
	return n.Kind == 0 || n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "")
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// indentOf guesses the indentation of a YAML file: the smallest indent of
// a block mapping key line, 2 when there is none (or it is odd-sized).
func indentOf(data []byte) int {
	best := 0
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		n := len(line) - len(trimmed)
		if n == 0 || trimmed == "" || trimmed[0] == '#' || trimmed[0] == '-' {
			continue
		}
		if best == 0 || n < best {
			best = n
		}
	}
	if best < 2 || best > 8 {
		return 2
	}
	return best
}
