package app

import (
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/hub"
)

// described notifies of a pending permission the hub described
// (Permission.Request): the title names the agent and what kind of request
// it is in product words (never the agent's own title), the body is the
// description line by line (hub.Permission.Lines: what runs, where, the
// environment, the files, the agent's words, the warnings).
// Approve and Deny are offered only when that whole description fits the
// notification and names what runs or what it touches; "Always allow
// here" only when the hub may remember it (hub.Rememberable).
func (n *notifier) described(p hub.Permission, agent string, escalated bool) {
	body, whole := requestBody(&p)
	once := !hub.Rememberable(p.Kind)
	n.mu.Lock()
	if whole {
		n.approvable[p.ID] = !once
	} else {
		delete(n.approvable, p.ID)
	}
	n.mu.Unlock()
	summary := agent + ": " + kindTitle(p.Kind, p.Request.Kind)
	if escalated {
		summary = "Still waiting — " + summary
	}
	n.deliver(notification{
		ID: "perm:" + p.ID, Title: summary, Body: body,
		Approve: whole, Once: once, ThreadID: p.ThreadID, Critical: escalated,
	})
}

// kindTitle is hub.KindWords for a notification's title, where the agent
// is named already: an agent's request reads as what it asks ("Run a
// command"), not "Agent request: run a command".
func kindTitle(kind, acpKind string) string {
	w := strings.TrimPrefix(hub.KindWords(kind, acpKind), "Agent request: ")
	return strings.ToUpper(w[:1]) + w[1:]
}

// requestBody is a described permission's notification body, and whether
// it is the whole description: it says what runs or what it touches, fits
// the body's bounds (notifyBodyMax, notifyBodyLines) and is printable
// (hub's renderings escape control characters already; checked again).
// A cut body keeps the warnings and says to open the card.
func requestBody(p *hub.Permission) (body string, whole bool) {
	r := p.Request
	lines := p.Lines()
	full := strings.Join(lines, "\n")
	named := r.CommandLine() != "" || len(r.Paths) > 0
	if named && len(lines) <= notifyBodyLines && utf8.RuneCountInString(full) <= notifyBodyMax && printable(full) {
		return full, true
	}
	if !named {
		lines = append(lines, "Open Switchboard to see the request.")
		return clip(strings.Join(lines, "\n"), notifyBodyMax), false
	}
	// What runs first, then the warnings, in what room there is.
	warn := r.Warnings()
	head := lines[:len(lines)-len(warn)]
	keep := max(notifyBodyLines-2-len(warn), 1)
	if keep < len(head) {
		head = head[:keep]
	}
	out := make([]string, 0, notifyBodyLines)
	for _, l := range head {
		out = append(out, clip(l, 100))
	}
	for _, w := range warn {
		if len(out) < notifyBodyLines-1 {
			out = append(out, w)
		}
	}
	return strings.Join(out, "\n") + "\nNot all of it fits here: open it in Switchboard to decide.", false
}

// rememberOffered reports whether the notification of permission id
// offered "Always allow here".
func (n *notifier) rememberOffered(id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.approvable[id]
}
