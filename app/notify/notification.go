// Package notify is what a desktop notification says and offers: its
// title and body for each reason (a permission, a question, a turn's end,
// a config error, a budget), whether a permission's notification offers
// Approve, Deny and "Always allow here", which answers a question's
// buttons give, and the decision each action makes. It is pure: no
// service calls, no state, no sender. The notifier that reads the hub's
// events and the senders (D-Bus on Linux, Wails' service elsewhere) stay
// in package app, which calls this one.
package notify

import (
	"strings"
	"unicode"
)

// Notification is one desktop notification. Title and Body are plain
// text: a sender that speaks markup (D-Bus) escapes them.
type Notification struct {
	ID    string // PermissionID, QuestionID, TurnID, ConfigID or BudgetID
	Title string
	Body  string
	// Approve offers Approve, Deny and "Always allow here": only for a
	// permission whose whole request is in Body. Otherwise a click on the
	// notification opens the window on it (its default action).
	Approve bool
	// Once leaves "Always allow here" out of Approve's choices: the hub
	// refuses to remember the request (hub.Rememberable).
	Once     bool
	ThreadID string
	// Critical raises it with critical urgency (an escalated permission:
	// still pending after permissions.escalateAfter), replacing the
	// notification of the same ID.
	Critical bool
	// Choices are a single-choice question's answers, each a button whose
	// action is ActionAnswer + its index (D-Bus; the Wails notifications
	// of macOS and Windows have fixed categories and show none).
	Choices []string
}

// Notification action ids.
const (
	ActionApprove = "approve"
	ActionDeny    = "deny"
	// ActionRemember approves and remembers for the thread: the hub adds
	// a rule allowing the same request in this thread from now on.
	ActionRemember = "remember-thread"
	// ActionDefault is a click on the notification itself (Wails'
	// DEFAULT_ACTION): open the window on what it is about.
	ActionDefault = "DEFAULT_ACTION"
	// ActionAnswer prefixes a question's choice: "answer:<index>" into
	// the choices the notification offered.
	ActionAnswer = "answer:"
)

// The kinds of notification ids ("<kind>:<target>"), what ParseID reads.
const (
	KindPermission = "perm"   // target: the permission id
	KindQuestion   = "ask"    // target: the elicitation id
	KindTurn       = "turn"   // target: "<thread id>/<turn id>"
	KindBudget     = "budget" // target: the budget's name
)

// ConfigID is the id of the one notification of a config file not applied.
const ConfigID = "config"

// PermissionID is the id of permission id's notification.
func PermissionID(id string) string { return KindPermission + ":" + id }

// QuestionID is the id of elicitation id's notification.
func QuestionID(id string) string { return KindQuestion + ":" + id }

// ParseID splits a notification id into its kind and target; ok is false
// for an id without a kind (ConfigID).
func ParseID(id string) (kind, target string, ok bool) { return strings.Cut(id, ":") }

// Bounds of a permission notification's body that notification servers
// show whole (they cut or fold longer ones).
const (
	BodyMax   = 240 // runes
	BodyLines = 6
)

// Clip shortens s, trimmed, to at most n runes, marking the cut with "…".
func Clip(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Printable reports whether s is only graphic characters, spaces and
// newlines.
func Printable(s string) bool {
	for _, r := range s {
		if r != '\n' && r != ' ' && !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}
