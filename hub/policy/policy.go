package policy

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard-hub/switchboard/hub"
)

// Kinds are the ACP tool kinds a rule may name.
var Kinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}

// MaxRuleName bounds a rule's name (it is recorded as "rule:<name>").
const MaxRuleName = 64

// Policy is a compiled list of config rules, in order. The zero value and
// nil have no rules. Immutable once compiled.
type Policy struct {
	rules []rule
}

// rule is one compiled hub.PermissionRule.
type rule struct {
	name     string
	agents   []string   // globs; nil: any
	folders  [][]string // glob elements; nil: any
	kinds    uint16     // bit per Kinds index; 0: any
	re       *regexp.Regexp
	pre      *prefilter // skips re when it cannot match
	inside   bool
	decision string
	// noExecute: an allow rule with match that names no agents, which
	// never applies to kind execute.
	noExecute bool
}

// RuleError is a rule Compile refused: its index in the list, its name,
// the field at fault and why.
type RuleError struct {
	Index int
	Name  string
	Field string
	Err   error
}

func (e *RuleError) Error() string {
	name := ""
	if e.Name != "" {
		name = fmt.Sprintf(" (%q)", e.Name)
	}
	return fmt.Sprintf("permissions.rules[%d]%s: %s: %v", e.Index, name, e.Field, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// Compile checks and compiles rules: each needs a unique name (printable,
// no white space, at most MaxRuleName bytes), valid agent globs
// (path.Match syntax), absolute folder globs (~ already expanded: see
// CheckFolderGlob), known kinds, a valid regular expression (RE2: its
// cost is linear in the input), inside "" or "folder", and a decision
// allow, allow_always, deny or ask. The first bad rule is a *RuleError.
func Compile(rules []hub.PermissionRule) (*Policy, error) {
	p := &Policy{rules: make([]rule, 0, len(rules))}
	seen := make(map[string]bool, len(rules))
	for i, r := range rules {
		fail := func(field string, err error) error {
			return &RuleError{Index: i, Name: r.Name, Field: field, Err: err}
		}
		if err := checkName(r.Name); err != nil {
			return nil, fail("name", err)
		}
		if seen[r.Name] {
			return nil, fail("name", fmt.Errorf("another rule is named %q", r.Name))
		}
		seen[r.Name] = true
		c := rule{name: r.Name, decision: r.Decision}
		switch r.Decision {
		case hub.RuleAllow, hub.RuleAllowAlways, hub.RuleDeny, hub.RuleAsk:
		case "":
			return nil, fail("decision", fmt.Errorf("missing (allow, allow_always, deny or ask)"))
		default:
			return nil, fail("decision", fmt.Errorf("unknown decision %q (allow, allow_always, deny or ask)", r.Decision))
		}
		for _, g := range r.Agents {
			if err := checkAgentGlob(g); err != nil {
				return nil, fail("agents", fmt.Errorf("invalid glob %q: %v", g, err))
			}
			c.agents = append(c.agents, g)
		}
		for _, g := range r.Folders {
			if err := CheckFolderGlob(g); err != nil {
				return nil, fail("folders", fmt.Errorf("invalid glob %q: %v", g, err))
			}
			c.folders = append(c.folders, SplitPath(g))
		}
		for _, k := range r.Kinds {
			i := slices.Index(Kinds, k)
			if i < 0 {
				return nil, fail("kinds", fmt.Errorf("unknown kind %q (%s)", k, strings.Join(Kinds, ", ")))
			}
			c.kinds |= 1 << i
		}
		if r.Match != "" {
			re, err := regexp.Compile(r.Match)
			if err != nil {
				return nil, fail("match", fmt.Errorf("invalid regular expression: %v", err))
			}
			c.re, c.pre = re, newPrefilter(r.Match)
		}
		switch r.Inside {
		case "":
		case hub.RuleInsideFolder:
			c.inside = true
		default:
			return nil, fail("inside", fmt.Errorf("unknown value %q (only %q)", r.Inside, hub.RuleInsideFolder))
		}
		c.noExecute = c.re != nil && allows(r.Decision) && !namesAgents(r.Agents)
		p.rules = append(p.rules, c)
	}
	return p, nil
}

// checkName refuses an empty, long or unprintable name, or one with white
// space.
func checkName(n string) error {
	if n == "" {
		return fmt.Errorf("missing")
	}
	if len(n) > MaxRuleName {
		return fmt.Errorf("longer than %d bytes", MaxRuleName)
	}
	for _, r := range n {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("%q holds white space or an unprintable character", n)
		}
	}
	return nil
}

// namesAgents reports whether agents names at least one agent and every
// entry is a literal agent id (no glob character): only then may an allow
// rule with match apply to kind execute.
func namesAgents(agents []string) bool {
	if len(agents) == 0 {
		return false
	}
	for _, a := range agents {
		if strings.ContainsAny(a, `*?[\`) {
			return false
		}
	}
	return true
}

// allows reports whether a decision approves.
func allows(decision string) bool {
	return decision == hub.RuleAllow || decision == hub.RuleAllowAlways
}

// Len is the number of rules.
func (p *Policy) Len() int {
	if p == nil {
		return 0
	}
	return len(p.rules)
}

// matchAgent reports whether agent matches one of globs (nil: any).
func matchAgent(globs []string, agent string) bool {
	if globs == nil {
		return true
	}
	for _, g := range globs {
		// The literal part before any wildcard must be agent's prefix.
		lit := g
		if i := strings.IndexAny(g, `*?[\`); i >= 0 {
			lit = g[:i]
		}
		if !strings.HasPrefix(agent, lit) {
			continue
		}
		if ok, _ := path.Match(g, agent); ok {
			return true
		}
	}
	return false
}
