package policy

import (
	"path/filepath"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
)

// Verdict is what the rules say about a request. Status "" means ask: no
// rule matched, the first that matched says ask, or its decision cannot
// be expressed through the options offered.
type Verdict struct {
	// Rule is the matching config rule's name; Remembered the matching
	// remembered rule's id (at most one of them is set).
	Rule, Remembered string
	// Decision is the matching rule's decision (hub.RuleAllow …).
	Decision string
	// Status (hub.PermissionApproved or hub.PermissionDeclined) and
	// OptionID, the option sent, when the rule decides.
	Status, OptionID string
}

// Decided reports whether the verdict decides the request.
func (v Verdict) Decided() bool { return v.Status != "" }

// DecidedBy is the Permission.DecidedBy of a deciding verdict:
// "rule:<name>" or "remembered:<id>".
func (v Verdict) DecidedBy() string {
	if v.Remembered != "" {
		return hub.DecidedByRememberedPrefix + v.Remembered
	}
	return hub.DecidedByRulePrefix + v.Rule
}

// Evaluate tries p's rules in order, then the remembered rules in order;
// the first that matches gives the verdict. The built-in safety no rule
// overrides: no rule decides an Undecidable request; a rule that would
// approve never matches a request with neither kind nor title, or that
// is Unresolved; and an allow rule with match and no agents named never
// matches kind execute.
func (p *Policy) Evaluate(r *Request, remembered []hub.RememberedRule) Verdict {
	if r.Undecidable {
		return Verdict{}
	}
	if v, ok := p.firstConfig(r); ok {
		return v
	}
	for i := range remembered {
		rr := &remembered[i]
		if MatchRemembered(rr, r) {
			return decide(Verdict{Remembered: rr.ID, Decision: rr.Decision}, r)
		}
	}
	return Verdict{}
}

// Shadow names the config rule that matches r first, if any: a
// remembered rule made from r would not decide requests like it.
func (p *Policy) Shadow(r *Request) string {
	v, _ := p.firstConfig(r)
	return v.Rule
}

// firstConfig is the verdict of the first config rule that matches r.
func (p *Policy) firstConfig(r *Request) (Verdict, bool) {
	if p == nil {
		return Verdict{}, false
	}
	unsafe := unsafeToAllow(r)
	kindBit := uint16(0)
	if i := slices.Index(Kinds, r.Kind); i >= 0 {
		kindBit = 1 << i
	}
	var folder []string // split once, when a rule needs it
	subject := r.Subject()
	lower, lowered := "", false // asciiLower(subject), when a prefilter needs it
	for i := range p.rules {
		c := &p.rules[i]
		if c.kinds != 0 && c.kinds&kindBit == 0 {
			continue
		}
		if allows(c.decision) && (unsafe || c.noExecute && r.Kind == "execute") {
			continue
		}
		if !matchAgent(c.agents, r.Agent) {
			continue
		}
		if c.folders != nil {
			if folder == nil {
				folder = SplitPath(r.Folder)
			}
			if !matchAnyFolder(c.folders, folder) {
				continue
			}
		}
		if c.inside && !allInside(r) {
			continue
		}
		if c.re != nil {
			if c.pre != nil && c.pre.fold && !lowered {
				lower, lowered = asciiLower(subject), true
			}
			if !c.pre.mayMatch(subject, lower) || !c.re.MatchString(subject) {
				continue
			}
		}
		return decide(Verdict{Rule: c.name, Decision: c.decision}, r), true
	}
	return Verdict{}, false
}

// unsafeToAllow is the built-in safety: no kind and no title, or a path
// (or label) that could not be read.
func unsafeToAllow(r *Request) bool {
	return r.Kind == "" && r.Title == "" || r.Unresolved
}

// allInside reports whether r has at least one location and every one
// lies inside its Root.
func allInside(r *Request) bool {
	if r.Unresolved || r.Root == "" || len(r.Locations) == 0 {
		return false
	}
	for _, l := range r.Locations {
		// Within is lexical: a path that is not absolute and clean
		// ("/a/../etc") is not taken to be inside anything.
		if !filepath.IsAbs(l) || filepath.Clean(l) != l || !Within(l, r.Root) {
			return false
		}
	}
	return true
}

func matchAnyFolder(globs [][]string, folder []string) bool {
	for _, g := range globs {
		if matchElems(g, folder) {
			return true
		}
	}
	return false
}

// MatchRemembered reports whether the remembered rule rr matches r: the
// same agent, within rr's scope (the thread; the folder; the agent) and,
// when rr is limited to one client's threads, one of them; the same kind;
// then either the exact command (rr.Command set: kind execute, or a
// request without locations; for kind execute also the same RunsIn and
// EnvKey) or every location (≥ 1) inside r's Root. A
// remembered allow never matches a request unsafe to allow.
func MatchRemembered(rr *hub.RememberedRule, r *Request) bool {
	if rr.Agent != r.Agent || rr.Kind != r.Kind || rr.ClientID != "" && rr.ClientID != r.ClientID {
		return false
	}
	switch rr.Scope {
	case hub.RememberThread:
		if rr.ThreadID != r.ThreadID {
			return false
		}
	case hub.RememberFolder:
		if rr.Cwd != r.Folder {
			return false
		}
	case hub.RememberAgent:
	default:
		return false
	}
	if allows(rr.Decision) && unsafeToAllow(r) {
		return false
	}
	if rr.Command != "" {
		// A command is one exact run: its line, and (kind execute) the
		// folder it runs in and the environment the agent sets.
		return r.Subject() == rr.Command && (r.Kind != "execute" || r.Cwd == rr.RunsIn && r.Env == rr.EnvKey)
	}
	return r.Kind != "execute" && allInside(r)
}

// decide turns a matching rule's decision into a verdict through r's
// options: allow is the allow_once option, allow_always the allow_always
// one, deny the reject_once one; otherwise (ask, or no such option) the
// verdict asks, still naming the rule.
func decide(v Verdict, r *Request) Verdict {
	var kind, status string
	switch v.Decision {
	case hub.RuleAllow:
		kind, status = "allow_once", hub.PermissionApproved
	case hub.RuleAllowAlways:
		kind, status = "allow_always", hub.PermissionApproved
	case hub.RuleDeny:
		kind, status = "reject_once", hub.PermissionDeclined
	default:
		return v
	}
	for _, o := range r.Options {
		if o.Kind == kind {
			v.Status, v.OptionID = status, o.OptionID
			return v
		}
	}
	return v
}

// RememberAs builds the remembered rule a decision with Remember makes
// from r (ID, CreatedAt, CreatedBy, PermissionID and ClientID are the
// caller's to fill): for kind execute, or a request whose locations are
// not (all, and at least one) inside the thread's folder, the exact
// command (Subject); for other kinds, the kind with every location inside
// the thread's folder. ok is false when r cannot be remembered: it has no
// kind, unresolved paths, no subject to match it by, or is Undecidable.
func RememberAs(r *Request, scope, decision string) (hub.RememberedRule, bool) {
	rr := hub.RememberedRule{Scope: scope, Agent: r.Agent, Kind: r.Kind, Decision: decision, Title: r.Title}
	switch scope {
	case hub.RememberThread:
		rr.ThreadID = r.ThreadID
	case hub.RememberFolder:
		rr.Cwd = r.Folder
	case hub.RememberAgent:
	default:
		return rr, false
	}
	if r.Kind == "" || r.Unresolved || r.Undecidable {
		return rr, false
	}
	if r.Kind == "execute" || !allInside(r) {
		rr.Command = r.Subject()
		if r.Kind == "execute" {
			rr.RunsIn, rr.EnvKey = r.Cwd, r.Env
		}
		return rr, rr.Command != ""
	}
	return rr, true
}
