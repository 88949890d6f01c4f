package engine

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub/policy"
)

// A terminal/create needs no permission of its own when the agent's own
// permission for the same command was approved in the same turn less than
// approvalReuse ago: agents that run commands through the client's
// terminals (Zed-style) ask about the tool call first, then create the
// terminal, and the user should not be asked twice.
//
// What matches: the approved permission's toolCall (as the agent sent it
// in session/request_permission) names the command in rawInput.command or
// rawInput.cmd (a string, or an array of strings joined with single
// spaces) or in its title (surrounding white space and backquotes
// removed); the terminal's command line is its command alone when it has
// no args, else command and args joined with single spaces, or with each
// argument shell-quoted as needed. The two must be equal, byte for byte.
// Each approval serves one terminal/create.
const approvalReuse = 60 * time.Second

// approval is an approved agent permission that names a command.
type approval struct {
	at       time.Time
	commands []string
}

// noteApproval remembers the approved toolCall of tr when it names a
// command. It takes tr.mu.
func (tr *turnRT) noteApproval(at time.Time, toolCall json.RawMessage) {
	cmds := commandTexts(toolCall)
	if len(cmds) == 0 {
		return
	}
	tr.mu.Lock()
	tr.approvals = append(tr.approvals, approval{at: at, commands: cmds})
	tr.mu.Unlock()
}

// takeApproval finds, uses up and reports an approval of tr younger than
// approvalReuse at now for one of lines. It takes tr.mu.
func (tr *turnRT) takeApproval(now time.Time, lines ...string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for i, a := range tr.approvals {
		if now.Sub(a.at) >= approvalReuse || now.Before(a.at) {
			continue
		}
		for _, c := range a.commands {
			for _, l := range lines {
				if c == l {
					tr.approvals = append(tr.approvals[:i], tr.approvals[i+1:]...)
					return true
				}
			}
		}
	}
	return false
}

// commandTexts returns the command texts a permission's toolCall names
// (see approvalReuse).
func commandTexts(toolCall json.RawMessage) []string {
	var tc struct {
		Title    string                     `json:"title"`
		RawInput map[string]json.RawMessage `json:"rawInput"`
	}
	if json.Unmarshal(toolCall, &tc) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"command", "cmd"} {
		raw, ok := tc.RawInput[k]
		if !ok {
			continue
		}
		if s, ok := policy.CommandText(raw); ok && s != "" {
			out = append(out, s)
		}
	}
	if t := strings.Trim(strings.TrimSpace(tc.Title), "`"); t != "" {
		out = append(out, t)
	}
	return out
}

// commandLines returns a terminal's command line as shown to the user
// (arguments shell-quoted where needed) and as plainly joined.
func commandLines(command string, args []string) (quoted, plain string) {
	if len(args) == 0 {
		return command, command
	}
	q := []string{shellQuote(command)}
	for _, a := range args {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " "), command + " " + strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it is empty or holds
// anything but letters, digits and -_./=:,+@%.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
