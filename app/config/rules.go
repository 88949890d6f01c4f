package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// permissions.rules and permissions.escalateAfter (docs/API.md,
// "Approvals with leverage").

// compileRules compiles the config's rules, folder globs ~-expanded
// (hub/policy checks and matches them); its error is a *policy.RuleError.
func compileRules(rules []hub.PermissionRule) (*policy.Policy, error) {
	expanded := make([]hub.PermissionRule, len(rules))
	for i, r := range rules {
		r.Folders = slices.Clone(r.Folders)
		for j, g := range r.Folders {
			r.Folders[j] = expandHome(g)
		}
		expanded[i] = r
	}
	return policy.Compile(expanded)
}

// validatePermissions checks permissions.escalateAfter (not negative,
// shorter than permissions.timeout) and permissions.rules.
func (c Config) validatePermissions() error {
	p := c.Permissions
	if p.EscalateAfter < 0 {
		return errors.New("permissions.escalateAfter must not be negative (leave it out to never escalate)")
	}
	if p.EscalateAfter > 0 && p.EscalateAfter >= p.Timeout {
		return fmt.Errorf("permissions.escalateAfter (%s) must be shorter than permissions.timeout (%s)",
			hub.FormatDuration(p.EscalateAfter), hub.FormatDuration(p.Timeout))
	}
	_, err := compileRules(p.Rules)
	return err
}

// withRuleLine prefixes a *policy.RuleError in err with the line of the
// rule's field in data (else the rule's line): "line 7:
// permissions.rules[1] ("reads"): kinds: unknown kind "reed" …".
func withRuleLine(err error, data []byte) error {
	var re *policy.RuleError
	if !errors.As(err, &re) || data == nil {
		return err
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	key := fmt.Sprintf("permissions.rules.%d", re.Index)
	line := lineOf(&root, key+"."+re.Field)
	if line == "" {
		line = lineOf(&root, key)
	}
	if line == "" {
		return err
	}
	return &lineError{line + err.Error(), err}
}

// rulesNode is the YAML sequence of rules, each with only the keys set,
// in the order of the documentation.
func rulesNode(rules []hub.PermissionRule) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	for _, r := range rules {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		add := func(k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }
		list := func(k string, vs []string) {
			if len(vs) == 0 {
				return
			}
			l := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
			for _, v := range vs {
				l.Content = append(l.Content, str(v))
			}
			add(k, l)
		}
		add("name", str(r.Name))
		list("agents", r.Agents)
		list("folders", r.Folders)
		list("kinds", r.Kinds)
		if r.Match != "" {
			add("match", str(r.Match))
		}
		if r.Inside != "" {
			add("inside", str(r.Inside))
		}
		add("decision", str(r.Decision))
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// patchPermissions applies the permissions part of a settings patch to
// the root mapping: timeout, escalateAfter ("" removes it) and the whole
// rules list (an empty one removes the key).
func patchPermissions(root *yaml.Node, p *hub.PermissionSettingsPatch) {
	if p == nil {
		return
	}
	if p.Timeout != nil {
		setScalar(mapping(root, "permissions"), "timeout", strings.TrimSpace(*p.Timeout), "!!str")
	}
	if p.EscalateAfter != nil {
		if v := strings.TrimSpace(*p.EscalateAfter); v == "" {
			removeKey(mapping(root, "permissions"), "escalateAfter")
		} else {
			setScalar(mapping(root, "permissions"), "escalateAfter", v, "!!str")
		}
	}
	if p.Rules != nil {
		if len(*p.Rules) == 0 {
			removeKey(mapping(root, "permissions"), "rules")
		} else {
			setNode(mapping(root, "permissions"), "rules", rulesNode(*p.Rules))
		}
	}
}
