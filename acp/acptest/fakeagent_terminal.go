package acptest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func (a *agent) grandchild(s *session, t *turn, secs int) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	c := exec.Command(exe, os.Args[1:]...)
	c.Env = append(os.Environ(), fmt.Sprintf("%s=%d", grandchildEnv, secs))
	c.Stdout = os.Stdout
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		a.say(s, t, "grandchild error: "+err.Error())
	} else {
		a.say(s, t, fmt.Sprintf("grandchild %d", c.Process.Pid))
	}
	a.flush()
	a.exit(0)
}

func (a *agent) terminal(s *session, t *turn, args []string) {
	a.terminalWith(s, t, t.cwd, nil, args)
}

// terminalWith is the terminal command in cwd, with env (name → value)
// added to terminal/create.
func (a *agent) terminalWith(s *session, t *turn, cwd string, env map[string]string, args []string) {
	fail := func(method string, r reply) {
		a.say(s, t, "terminal error "+method+" "+r.errString())
	}
	params := map[string]any{
		"sessionId": s.id, "command": args[0], "args": args[1:], "cwd": cwd, "outputByteLimit": 1 << 20,
	}
	if len(env) > 0 {
		vars := []map[string]string{}
		for k, v := range env {
			vars = append(vars, map[string]string{"name": k, "value": v})
		}
		params["env"] = vars
	}
	r := a.call("terminal/create", params)
	if r.err != nil {
		fail("terminal/create", r)
		return
	}
	var created struct {
		TerminalID string `json:"terminalId"`
	}
	if json.Unmarshal(r.result, &created) != nil || created.TerminalID == "" {
		fail("terminal/create", reply{err: &rpcError{Code: codeInvalidParams, Message: "no terminalId in " + string(r.result)}})
		return
	}
	term := map[string]string{"sessionId": s.id, "terminalId": created.TerminalID}
	tc := a.toolCallID()
	a.update(s.id, map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": tc, "title": "Run " + strings.Join(args, " "),
		"kind": "execute", "status": "in_progress",
		"content": []map[string]string{{"type": "terminal", "terminalId": created.TerminalID}},
	})
	msg := ""
	ch := a.startCall(a.newID(), "terminal/wait_for_exit", term)
	select {
	case r = <-ch:
	case <-t.done:
		if k := a.call("terminal/kill", term); k.err != nil {
			msg = "terminal error terminal/kill " + k.errString()
		}
		r = <-ch
	}
	var exit struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	}
	var out struct {
		Output    string `json:"output"`
		Truncated bool   `json:"truncated"`
	}
	if r.err != nil {
		msg = "terminal error terminal/wait_for_exit " + r.errString()
	} else {
		_ = json.Unmarshal(r.result, &exit)
	}
	if msg == "" {
		if o := a.call("terminal/output", term); o.err != nil {
			msg = "terminal error terminal/output " + o.errString()
		} else {
			_ = json.Unmarshal(o.result, &out)
		}
	}
	if rel := a.call("terminal/release", term); rel.err != nil && msg == "" {
		msg = "terminal error terminal/release " + rel.errString()
	}
	status := "completed"
	if msg != "" || exit.ExitCode == nil || *exit.ExitCode != 0 {
		status = "failed"
	}
	a.update(s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": tc, "status": status})
	if msg == "" {
		code, sig := "null", "null"
		if exit.ExitCode != nil {
			code = strconv.Itoa(*exit.ExitCode)
		}
		if exit.Signal != nil {
			sig = *exit.Signal
		}
		msg = fmt.Sprintf("terminal exit %s signal %s truncated %t\n%s", code, sig, out.Truncated, out.Output)
	}
	a.say(s, t, msg)
}

// terminalBackground is the terminal-bg command: a command that outlives
// its turn.
func (a *agent) terminalBackground(s *session, t *turn, args []string) {
	r := a.call("terminal/create", map[string]any{
		"sessionId": s.id, "command": args[0], "args": args[1:], "cwd": t.cwd, "outputByteLimit": 1 << 20,
	})
	var created struct {
		TerminalID string `json:"terminalId"`
	}
	if r.err != nil {
		a.say(s, t, "terminal error terminal/create "+r.errString())
		return
	}
	if json.Unmarshal(r.result, &created) != nil || created.TerminalID == "" {
		a.say(s, t, "terminal error terminal/create: no terminalId in "+string(r.result))
		return
	}
	term := map[string]string{"sessionId": s.id, "terminalId": created.TerminalID}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		o := a.call("terminal/output", term)
		if o.err != nil {
			a.say(s, t, "terminal error terminal/output "+o.errString())
			return
		}
		var out struct{ Output string }
		if json.Unmarshal(o.result, &out) == nil && out.Output != "" {
			a.say(s, t, "terminal-bg "+created.TerminalID)
			return
		}
	}
	a.say(s, t, "terminal-bg no output")
}

// askTerminal asks the client's permission for a command line, as an agent
// that runs commands in the client's terminals does, then runs it with
// terminal/create when allowed. With always, it also offers its own
// allow_always and remembers the line when that is chosen: the next time
// it runs the line without asking (as claude-agent-acp does).
func (a *agent) askTerminal(s *session, t *turn, args []string, always ...bool) {
	line := strings.Join(args, " ")
	offerAlways := len(always) > 0 && always[0]
	if offerAlways && s.always[line] {
		a.say(s, t, "ask-always-terminal remembered")
		a.terminal(s, t, args)
		return
	}
	options := []map[string]string{{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"}}
	if offerAlways {
		options = append(options, map[string]string{"optionId": "allow-always", "name": "Always allow " + args[0], "kind": "allow_always"})
	}
	options = append(options, map[string]string{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"})
	tc := a.toolCallID()
	title := "`" + line + "`" // as claude-agent-acp titles a command
	a.update(s.id, map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": tc, "title": title,
		"kind": "execute", "status": "pending", "rawInput": map[string]string{"command": line},
	})
	r := a.call("session/request_permission", map[string]any{
		"sessionId": s.id,
		"toolCall":  map[string]any{"toolCallId": tc, "title": title, "kind": "execute", "status": "pending", "rawInput": map[string]string{"command": line}},
		"options":   options,
	})
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	ok := r.err == nil && json.Unmarshal(r.result, &res) == nil
	if ok && offerAlways && res.Outcome.OptionID == "allow-always" {
		if s.always == nil {
			s.always = map[string]bool{}
		}
		s.always[line] = true
		res.Outcome.OptionID = "allow-once"
	}
	if !ok || res.Outcome.OptionID != "allow-once" {
		a.update(s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": tc, "status": "failed"})
		a.say(s, t, "ask-terminal refused")
		return
	}
	a.terminal(s, t, args)
}

// askRun is the hostile agent of "ask-run": it asks the client's
// permission with the tool call spec.ToolCall verbatim (its bytes as
// given: repeated or differently cased members kept), then, when any
// allow option was selected, creates a terminal with spec's command,
// args, env and cwd and says what it printed.
func (a *agent) askRun(s *session, t *turn, spec askRunSpec) {
	params := json.RawMessage(`{"sessionId":` + quoteJSON(s.id) + `,"toolCall":` + string(spec.ToolCall) +
		`,"options":[{"optionId":"allow-once","name":"Allow","kind":"allow_once"},{"optionId":"reject-once","name":"Reject","kind":"reject_once"}]}`)
	r := a.call("session/request_permission", params)
	var res struct {
		Outcome struct {
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if r.err != nil {
		a.say(s, t, "ask-run error "+r.errString())
		return
	}
	if json.Unmarshal(r.result, &res) != nil || res.Outcome.OptionID != "allow-once" {
		a.say(s, t, "ask-run refused")
		return
	}
	cp := map[string]any{"sessionId": s.id, "command": spec.Command, "outputByteLimit": 1 << 20}
	if len(spec.Args) > 0 { // the schema's args is an array: never null
		cp["args"] = spec.Args
	}
	if spec.Cwd != "" {
		cp["cwd"] = spec.Cwd
	}
	if len(spec.Env) > 0 {
		cp["env"] = spec.Env
	}
	c := a.call("terminal/create", cp)
	if c.err != nil {
		a.say(s, t, "ask-run terminal refused "+c.errString())
		return
	}
	var created struct {
		TerminalID string `json:"terminalId"`
	}
	_ = json.Unmarshal(c.result, &created)
	term := map[string]string{"sessionId": s.id, "terminalId": created.TerminalID}
	a.call("terminal/wait_for_exit", term)
	o := a.call("terminal/output", term)
	var out struct{ Output string }
	_ = json.Unmarshal(o.result, &out)
	a.say(s, t, "ask-run ran: "+out.Output)
}

// askRunSpec is the argument of "ask-run".
type askRunSpec struct {
	ToolCall json.RawMessage     `json:"toolCall"`
	Command  string              `json:"command"`
	Args     []string            `json:"args"`
	Env      []map[string]string `json:"env"`
	Cwd      string              `json:"cwd"`
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
