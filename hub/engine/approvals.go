package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// A terminal/create needs no card of its own only when it runs exactly
// what a person already approved in the same turn, less than
// approvalReuse ago: agents that run commands through the client's
// terminals (Zed-style) ask about the tool call first, then create the
// terminal, and the user should not be asked twice about one command.
//
// What covers a terminal (docs/SECURITY.md, "What an approval covers"):
// an agent's own permission (kind agent) whose description
// (describe.go) is of ACP kind execute, names a command, has no
// conflicting, malformed, git_settings or title_differs flag, and was
// approved by a person (a surface or a client) or by a config rule —
// never by a remembered decision, a timeout or the hub; and whose argv,
// folder and environment (names and values) equal the terminal's (a
// line with shell syntax: the same line, run by /bin/sh -c). A
// read, edit or any other approval never covers a command. Each approval
// covers one terminal/create; the terminal that ran is recorded in the
// audit as its own permission, decided by "covered:<permissionId>".
const approvalReuse = 60 * time.Second

// approval is an approved agent permission that may cover a terminal.
type approval struct {
	at  time.Time
	id  string // the permission's id
	req *hub.PermissionRequest
	env []hub.EnvVar // the environment it named, with values
}

// noteApproval remembers p, just approved, when it may cover a terminal
// (see approvalReuse). It takes tr.mu.
func (tr *turnRT) noteApproval(at time.Time, p hub.Permission) {
	d := p.Request
	if p.Kind != hub.PermKindAgent || d == nil || d.Kind != "execute" || len(d.Argv) == 0 || !approvedByPerson(p.DecidedBy) ||
		d.Has(hub.FlagConflicting) || d.Has(hub.FlagMalformed) || d.Has(hub.FlagGitSettings) || d.Has(hub.FlagTitleDiffers) {
		return
	}
	env := policy.ReadToolCall(p.ToolCall).Env
	tr.mu.Lock()
	tr.approvals = append(tr.approvals, approval{at: at, id: p.ID, req: d, env: env})
	tr.mu.Unlock()
}

// approvedByPerson reports whether decidedBy is a person (a surface, a
// client) or a config rule.
func approvedByPerson(decidedBy string) bool {
	switch decidedBy {
	case hub.SurfaceWindow, hub.SurfaceNotification, hub.SurfaceBrowser, hub.SurfaceTray:
		return true
	}
	return strings.HasPrefix(decidedBy, hub.DecidedByClientPrefix) || strings.HasPrefix(decidedBy, hub.DecidedByRulePrefix)
}

// takeApproval finds, uses up and returns the id of an approval of tr
// younger than approvalReuse at now that runs what term describes, with
// the environment env. It takes tr.mu.
func (tr *turnRT) takeApproval(now time.Time, term *hub.PermissionRequest, env []hub.EnvVar) (string, bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for i, a := range tr.approvals {
		if now.Sub(a.at) >= approvalReuse || now.Before(a.at) {
			continue
		}
		if sameRun(a.req, term) && slices.Equal(a.env, env) {
			tr.approvals = slices.Delete(tr.approvals, i, i+1)
			return a.id, true
		}
	}
	return "", false
}
