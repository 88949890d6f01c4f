package acptest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func (a *agent) prompt(id, params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if !a.params(id, params, &p, "sessionId", "prompt") {
		return
	}
	text := ""
	found := false
	for _, b := range p.Prompt {
		if b.Type == "" {
			a.replyError(id, codeInvalidParams, "Invalid params: content block without type")
			return
		}
		if b.Type == "text" && !found {
			text, found = b.Text, true
		}
	}
	cmd, rest := splitWord(strings.TrimLeft(text, " \t\r\n"))

	a.mu.Lock()
	s := a.lookup(id, p.SessionID)
	if s == nil {
		a.mu.Unlock()
		return
	}
	if s.turn != nil {
		a.mu.Unlock()
		a.replyError(id, codeInternalError, "a prompt is already running in session "+s.id)
		return
	}
	t := &turn{done: make(chan struct{}), cwd: s.cwd}
	if cmd == "hang-hard" {
		// Before the reader can see stdin EOF or the client sends a signal.
		t.ignoreCancel = true
		a.hardHang = true
		signal.Ignore(os.Interrupt, syscall.SIGTERM)
	}
	s.turn = t
	a.mu.Unlock()

	go func() {
		stop, answer := a.script(s, t, text, cmd, rest)
		if !answer {
			return
		}
		a.mu.Lock()
		if s.turn == t {
			s.turn = nil
		}
		s.history = append(s.history, exchange{user: text, agent: t.text()})
		s.updatedAt = time.Now()
		a.mu.Unlock()
		if t.cancelled() {
			stop = "cancelled"
		}
		t.mu.Lock()
		if fail := t.fail; fail != nil {
			t.mu.Unlock()
			a.writeLine(marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: *fail}))
			return
		}
		resp := map[string]any{"stopReason": stop}
		if t.usage != nil {
			resp["usage"] = t.usage
		}
		t.mu.Unlock()
		a.reply(id, resp)
	}()
}

// splitWord splits s at its first blank: the word, and the rest with its
// leading blanks removed.
func splitWord(s string) (word, rest string) {
	i := strings.IndexAny(s, " \t\r\n")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t\r\n")
}

// intArgs parses n integer arguments from rest; missing trailing ones take
// the defaults given in def (len(def) <= n, aligned to the end).
func intArgs(rest string, n int, def ...int) ([]int, bool) {
	fields := strings.Fields(rest)
	if len(fields) > n || len(fields) < n-len(def) {
		return nil, false
	}
	out := make([]int, n)
	for i := range out {
		if i < len(fields) {
			v, err := strconv.Atoi(fields[i])
			if err != nil || v < 0 {
				return nil, false
			}
			out[i] = v
		} else {
			out[i] = def[i-(n-len(def))]
		}
	}
	return out, true
}

// say sends an agent_message_chunk and records it for session/load.
func (a *agent) say(s *session, t *turn, text string) {
	t.record(text)
	a.update(s.id, textChunk("agent_message_chunk", text))
}

func (a *agent) toolCallID() string {
	return fmt.Sprintf("tool-%d", a.nextTool.Add(1))
}

// scriptRun is one prompt run as a script command: its session and turn,
// the whole prompt text, the command word and the rest (its arguments).
type scriptRun struct {
	a               *agent
	s               *session
	t               *turn
	text, cmd, rest string
}

const endTurn = "end_turn"

// say sends an agent_message_chunk of the run's turn.
func (r *scriptRun) say(text string) { r.a.say(r.s, r.t, text) }

// end ends the turn with end_turn.
func (r *scriptRun) end() (string, bool) { return endTurn, true }

// bad says "bad arguments: <prompt>" and ends the turn.
func (r *scriptRun) bad() (string, bool) {
	r.say("bad arguments: " + r.text)
	return r.end()
}

// hang waits for session/cancel (or session/close), then answers cancelled.
func (r *scriptRun) hang() (string, bool) {
	<-r.t.done
	return "cancelled", true
}

// fakeScript is one script command: the prompt's first word names it; run
// returns the turn's stop reason, and answer false when the prompt must
// never be answered. The package doc says what each does in full.
type fakeScript struct {
	name string
	doc  string // one line: its arguments and what it does
	run  func(r *scriptRun) (stop string, answer bool)
}

// fakeScripts are the fake agent's script commands.
var fakeScripts = []fakeScript{
	{"echo", "<text>: says text verbatim", func(r *scriptRun) (string, bool) {
		r.say(r.rest)
		return r.end()
	}},
	{"chunks", "<b64>…: one agent_message_chunk per argument, base64-decoded, each flushed", scriptChunks},
	{"thought-chunks", "<b64>…: chunks as agent_thought_chunks", scriptChunks},
	{"chunks-hang", "<b64>…: chunks, then hang", scriptChunks},
	{"tool-raw", "<b64>: a pending execute tool_call whose rawInput is the argument's JSON", func(r *scriptRun) (string, bool) {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(r.rest))
		if err != nil || !json.Valid(b) {
			return r.bad()
		}
		r.a.update(r.s.id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": r.a.toolCallID(),
			"title": "Run it", "kind": "execute", "status": "pending", "rawInput": json.RawMessage(b)})
		return r.end()
	}},
	{"think", "a thought chunk, then a message chunk", func(r *scriptRun) (string, bool) {
		r.a.update(r.s.id, textChunk("agent_thought_chunk", "Thinking about the request."))
		r.say("Done thinking.")
		return r.end()
	}},
	{"tools", "an edit tool call for hello.txt through to completed, and a plan", func(r *scriptRun) (string, bool) {
		r.a.tools(r.s, r.t)
		return r.end()
	}},
	{"permission", "a tool call and session/request_permission; says the outcome", func(r *scriptRun) (string, bool) {
		return r.a.permission(r.s, r.t, 0), true
	}},
	{"slow-permission", "<ms>: permission, waiting ms between the tool call and the request", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1)
		if !ok {
			return r.bad()
		}
		return r.a.permission(r.s, r.t, time.Duration(v[0])*time.Millisecond), true
	}},
	{"unknown-update", "an update of a kind from the future, then a usage_update", func(r *scriptRun) (string, bool) {
		sid := string(marshal(r.s.id))
		r.a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + sid +
			`,"update":{"sessionUpdate":"future_kind_xyz","futureField":{"nested":[1,2,3],"flag":true},"note":"from the future","_meta":{"fake":"yes"}}}}`))
		r.a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + sid +
			`,"update":{"sessionUpdate":"usage_update","used":1234,"size":200000,"cost":{"amount":0.0123,"currency":"USD"}}}}`))
		return r.end()
	}},
	{"usage", "<used> <size> <amount|-> <currency> [<in> <out>]: a usage_update, the tokens in the response", scriptUsage},
	{"usage-hang", "usage's arguments: usage, then hang", scriptUsage},
	{"usage-permission", "usage's arguments: usage, then permission (a budget the usage crosses holds it)", scriptUsage},
	{"raw-update", "<json>: one session/update whose update is json exactly", func(r *scriptRun) (string, bool) {
		if !json.Valid([]byte(r.rest)) {
			return r.bad()
		}
		r.a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` +
			string(marshal(r.s.id)) + `,"update":` + r.rest + `}}`))
		return r.end()
	}},
	{"ask", "<json {toolCall, options}>: session/request_permission with both as given; says the outcome", func(r *scriptRun) (string, bool) {
		var req struct {
			ToolCall json.RawMessage `json:"toolCall"`
			Options  json.RawMessage `json:"options"`
		}
		if json.Unmarshal([]byte(r.rest), &req) != nil || req.ToolCall == nil || req.Options == nil {
			return r.bad()
		}
		res := r.a.call("session/request_permission", map[string]any{"sessionId": r.s.id, "toolCall": req.ToolCall, "options": req.Options})
		if res.err != nil {
			r.say(fmt.Sprintf("outcome: error %d", res.err.Code))
		} else {
			r.say("outcome: " + string(res.result))
		}
		return r.end()
	}},
	{"elicit", "<json object>: elicitation/create with the object's fields; says the answer", func(r *scriptRun) (string, bool) {
		var req map[string]json.RawMessage
		if json.Unmarshal([]byte(r.rest), &req) != nil || req == nil {
			return r.bad()
		}
		params := map[string]any{"sessionId": r.s.id}
		for k, v := range req {
			params[k] = v
		}
		res := r.a.call("elicitation/create", params)
		if res.err != nil {
			r.say(fmt.Sprintf("elicit: error %d", res.err.Code))
		} else {
			r.say("elicit: " + string(res.result))
		}
		return r.end()
	}},
	{"commands", "<name>…: available_commands_update with those commands", func(r *scriptRun) (string, bool) {
		cmds := []map[string]any{}
		for _, name := range strings.Fields(r.rest) {
			cmds = append(cmds, map[string]any{"name": name, "description": "Run " + name})
		}
		r.a.update(r.s.id, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": cmds})
		return r.end()
	}},
	{"vendor", "vendor notifications and a _fakeagent/query request; says its outcome", func(r *scriptRun) (string, bool) {
		r.a.notify("_fakeagent/status", map[string]string{"state": "busy"})
		r.a.notify("fakeagent/notice", map[string]string{"text": "no underscore"})
		res := r.a.call("_fakeagent/query", map[string]string{"sessionId": r.s.id})
		r.say("vendor " + codeOrOK(res))
		return r.end()
	}},
	{"garbage", "lines that are not JSON-RPC on stdout, then \"after garbage\"", func(r *scriptRun) (string, bool) {
		for _, l := range []string{
			"this is not JSON",
			"",
			`{"jsonrpc":"2.0","method":`,
			`[1,2,3]`,
			`{"hello":"world"}`,
			`{"jsonrpc":"2.0","id":987654321,"result":{}}`,
		} {
			r.a.writeLine([]byte(l))
		}
		r.say("after garbage")
		return r.end()
	}},
	{"bigline", "<bytes>: one agent_message_chunk of FakeText(bytes) on a single line", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1)
		if !ok {
			return r.bad()
		}
		// Built by hand: FakeText needs no escaping, and encoding/json is
		// slow on many MiB in a race-enabled binary.
		r.a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` +
			string(marshal(r.s.id)) + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` +
			FakeText(v[0]) + `"}}}}`))
		return r.end()
	}},
	{"flood", "<count> <size>: count message chunks of size bytes, as fast as possible", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 2)
		if !ok {
			return r.bad()
		}
		r.a.flood(r.s, r.t, v[0], v[1])
		return r.end()
	}},
	{"mixed", "<rounds>: rounds of message, thought, image and tool call updates", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1)
		if !ok {
			return r.bad()
		}
		r.a.mixed(r.s, r.t, v[0])
		return r.end()
	}},
	{"ticks", "<count> <rate>: count message chunks, rate a second, each its send time", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 2)
		if !ok || v[1] <= 0 {
			return r.bad()
		}
		r.a.ticks(r.s, r.t, v[0], v[1])
		return r.end()
	}},
	{"hang", "never answers until session/cancel or session/close: cancelled", func(r *scriptRun) (string, bool) {
		return r.hang()
	}},
	{"hang-hard", "never answers; ignores cancel, close, stdin EOF, SIGINT and SIGTERM", func(r *scriptRun) (string, bool) {
		select {}
	}},
	{"crash", "[code]: says \"about to crash\", writes to stderr, exits code (3) unanswered", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1, 3)
		if !ok {
			return r.bad()
		}
		r.say("about to crash")
		r.a.flush()
		fmt.Fprint(r.a.errOut, "fatal: simulated crash\n")
		r.a.exit(v[0])
		select {}
	}},
	{"crash-with", "<b64>: the argument as a line on stdout and stderr, then exit 3", func(r *scriptRun) (string, bool) {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(r.rest))
		if err != nil {
			return r.bad()
		}
		r.a.writeLine(b)
		r.a.flush()
		fmt.Fprintf(r.a.errOut, "%s\n", b)
		r.a.exit(3)
		select {}
	}},
	{"noeol", "a message chunk without its newline, then exit 0 unanswered", func(r *scriptRun) (string, bool) {
		r.a.wmu.Lock()
		r.a.out.Write(marshal(request{JSONRPC: "2.0", Method: "session/update",
			Params: map[string]any{"sessionId": r.s.id, "update": textChunk("agent_message_chunk", "no newline at end")}}))
		r.a.out.Flush()
		r.a.exit(0)
		select {}
	}},
	{"grandchild", "[seconds]: a grandchild holding the pipes (sleeping 300 s), then exit 0 unanswered", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1, 300)
		if !ok {
			return r.bad()
		}
		r.a.grandchild(r.s, r.t, v[0])
		select {}
	}},
	{"daemon", "[seconds]: a grandchild in a session of its own, stdio on /dev/null", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1, 300)
		if !ok {
			return r.bad()
		}
		r.a.daemon(r.s, r.t, v[0])
		return r.end()
	}},
	{"fs-read", "<path>: fs/read_text_file; says the content or the error", func(r *scriptRun) (string, bool) {
		path, _ := splitWord(r.rest)
		res := r.a.call("fs/read_text_file", map[string]string{"sessionId": r.s.id, "path": path})
		if res.err != nil {
			r.say("fs-read error " + res.errString())
			return r.end()
		}
		var read struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(res.result, &read) != nil || read.Content == nil {
			r.say("fs-read error invalid result: " + string(res.result))
			return r.end()
		}
		r.say("fs-read ok: " + *read.Content)
		return r.end()
	}},
	{"fs-read-many", "<n> <path>: n fs/read_text_file requests at once; says the outcomes", func(r *scriptRun) (string, bool) {
		n, path := splitWord(r.rest)
		v, ok := intArgs(n, 1)
		if !ok || path == "" {
			return r.bad()
		}
		r.a.many(r.s, r.t, "fs-read-many", v[0], func(int) (string, any) {
			return "fs/read_text_file", map[string]string{"sessionId": r.s.id, "path": path}
		})
		return r.end()
	}},
	{"elicit-many", "<n> <json>: n elicitation/create requests at once; says the outcomes", func(r *scriptRun) (string, bool) {
		n, q := splitWord(r.rest)
		v, ok := intArgs(n, 1)
		var req map[string]json.RawMessage
		if !ok || json.Unmarshal([]byte(q), &req) != nil || req == nil {
			return r.bad()
		}
		r.a.many(r.s, r.t, "elicit-many", v[0], func(int) (string, any) {
			params := map[string]any{"sessionId": r.s.id}
			for k, v := range req {
				params[k] = v
			}
			return "elicitation/create", params
		})
		return r.end()
	}},
	{"permissions", "<n>: n session/request_permission requests at once; says the outcomes", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1)
		if !ok {
			return r.bad()
		}
		r.a.many(r.s, r.t, "permissions", v[0], func(i int) (string, any) {
			return "session/request_permission", map[string]any{
				"sessionId": r.s.id,
				"toolCall":  map[string]string{"toolCallId": fmt.Sprintf("many-%d", i), "title": fmt.Sprintf("Step %d", i), "kind": "execute", "status": "pending"},
				"options": []map[string]string{
					{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
					{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
				},
			}
		})
		return r.end()
	}},
	{"plant-git", "<marker dir>: plants a filter, an fsmonitor and hooks in the folder's .git (fakeagent_plantgit.go)", func(r *scriptRun) (string, bool) {
		r.say(plantGit(r.t.cwd, r.rest))
		return r.end()
	}},
	{"fs-write", "<path> [text]: fs/write_text_file of text verbatim; says ok or the error", func(r *scriptRun) (string, bool) {
		path, content := splitWord(r.rest)
		if i := strings.IndexAny(r.rest, " \t\r\n"); i >= 0 {
			content = r.rest[i+1:] // one blank only: the rest is verbatim
		}
		res := r.a.call("fs/write_text_file", map[string]string{"sessionId": r.s.id, "path": path, "content": content})
		if res.err != nil {
			r.say("fs-write error " + res.errString())
		} else {
			r.say("fs-write ok")
		}
		return r.end()
	}},
	{"terminal", "<command> <arg>…: runs it in a client terminal; says its output and exit", func(r *scriptRun) (string, bool) {
		args := strings.Fields(r.rest)
		if len(args) == 0 {
			return r.bad()
		}
		r.a.terminal(r.s, r.t, args)
		return r.end()
	}},
	{"terminal-bg", "<command> <arg>…: starts it in a client terminal, ends the turn once it printed, leaves it running", func(r *scriptRun) (string, bool) {
		args := strings.Fields(r.rest)
		if len(args) == 0 {
			return r.bad()
		}
		r.a.terminalBackground(r.s, r.t, args)
		return r.end()
	}},
	{"terminal-in", "<dir> <command> <arg>…: terminal, in dir", func(r *scriptRun) (string, bool) {
		dir, cmdline := splitWord(r.rest)
		args := strings.Fields(cmdline)
		if dir == "" || len(args) == 0 {
			return r.bad()
		}
		r.a.terminalWith(r.s, r.t, dir, nil, args)
		return r.end()
	}},
	{"terminal-env", "<k=v> <command> <arg>…: terminal, with k=v in its environment", func(r *scriptRun) (string, bool) {
		kv, cmdline := splitWord(r.rest)
		k, v, ok := strings.Cut(kv, "=")
		args := strings.Fields(cmdline)
		if !ok || len(args) == 0 {
			return r.bad()
		}
		r.a.terminalWith(r.s, r.t, r.t.cwd, map[string]string{k: v}, args)
		return r.end()
	}},
	{"ask-terminal", "<command> <arg>…: asks permission for the command, then runs it as terminal", func(r *scriptRun) (string, bool) {
		args := strings.Fields(r.rest)
		if len(args) == 0 {
			return r.bad()
		}
		r.a.askTerminal(r.s, r.t, args)
		return r.end()
	}},
	{"ask-always-terminal", "<command> <arg>…: ask-terminal offering the agent's own allow_always too; a line allowed always runs again without asking", func(r *scriptRun) (string, bool) {
		args := strings.Fields(r.rest)
		if len(args) == 0 {
			return r.bad()
		}
		r.a.askTerminal(r.s, r.t, args, true)
		return r.end()
	}},
	{"ask-run", "<json {toolCall, command, args, env, cwd}>: a hostile agent's permission request, then the run", func(r *scriptRun) (string, bool) {
		var spec askRunSpec
		if json.Unmarshal([]byte(r.rest), &spec) != nil || len(spec.ToolCall) == 0 || spec.Command == "" {
			return r.bad()
		}
		r.a.askRun(r.s, r.t, spec)
		return r.end()
	}},
	{"cancel-request", "fs/read_text_file, cancelled at once with $/cancel_request; says the outcome", func(r *scriptRun) (string, bool) {
		id := r.a.newID()
		ch := r.a.startCall(id, "fs/read_text_file", map[string]string{
			"sessionId": r.s.id, "path": filepath.Join(r.t.cwd, "cancel-request.txt")})
		r.a.notify("$/cancel_request", map[string]any{"requestId": id})
		res := <-ch
		if res.err != nil {
			r.say(fmt.Sprintf("cancel-request error %d", res.err.Code))
		} else {
			r.say("cancel-request result")
		}
		return r.end()
	}},
	{"stderr", "<bytes>: FakeText(bytes) on stderr", func(r *scriptRun) (string, bool) {
		v, ok := intArgs(r.rest, 1)
		if !ok {
			return r.bad()
		}
		fmt.Fprint(r.a.errOut, FakeText(v[0]))
		return r.end()
	}},
	{"ids", "two requests with the ids 0 and \"abc\"; says their outcomes", func(r *scriptRun) (string, bool) {
		params := map[string]string{"sessionId": r.s.id, "path": "/nonexistent"}
		r0 := <-r.a.startCall(json.RawMessage("0"), "fs/read_text_file", params)
		rabc := <-r.a.startCall(json.RawMessage(`"abc"`), "fs/read_text_file", params)
		r.say("ids 0=" + codeOrOK(r0) + " abc=" + codeOrOK(rabc))
		return r.end()
	}},
	{"state", "says the session's mode and model as the prompt found them", func(r *scriptRun) (string, bool) {
		r.a.mu.Lock()
		mode, model := r.s.mode, r.s.model
		r.a.mu.Unlock()
		r.say("state mode=" + mode + " model=" + model)
		return r.end()
	}},
	{"usage-hostile", "usage_updates and a response usage at the numbers' limits (fakeagent_avail.go)", scriptAvail},
	{"messages", "chunks of two messages interleaved, with messageIds, and a tool call named Bash (fakeagent_updates.go)", scriptMessages},
	{"notice", "<severity> <title…>: a notice update (fakeagent_updates.go)", scriptNotice},
	{"compact", "[fail]: compaction_update in_progress, summary chunks, completed (or failed) (fakeagent_updates.go)", scriptCompact},
	{"plan-ops", "plan_update of plans p1 and p2, then plan_removed p2 (fakeagent_updates.go)", scriptPlanOps},
	{"rate-limit", "<seconds>: a usage_update whose _meta says rejected until now+seconds (fakeagent_updates.go)", scriptRateLimit},
	{"rate-limit-error-noreset", ": fails the prompt with an error whose data is a rejected rate limit without a reset time (fakeagent_updates.go)", scriptRateLimitNoReset},
	{"rate-limit-error", "<seconds>: fails the prompt with an error whose data is a rejected rate limit until now+seconds (fakeagent_updates.go)", scriptRateLimitError},
	{"elicit-url", "<url>: a URL-mode elicitation, then elicitation/complete; says the answer (fakeagent_updates.go)", scriptElicitURL},
	{"subagent", "<title…>: a sub-agent whose stream and permission request come under its own session (fakeagent_updates.go)", scriptSubagent},
	{"fs-stall", "<n> <lines> <path>: n reads at once, then reads no stdin until <path>.go exists (fakeagent_avail.go)", scriptAvail},
}

// scriptsByName indexes fakeScripts.
var scriptsByName = func() map[string]fakeScript {
	m := make(map[string]fakeScript, len(fakeScripts))
	for _, sc := range fakeScripts {
		if _, dup := m[sc.name]; dup {
			panic("acptest: two script commands named " + sc.name)
		}
		m[sc.name] = sc
	}
	return m
}()

// scriptChunks is chunks, thought-chunks and chunks-hang: each argument,
// base64 (so the prompt need not hold the text), is one chunk, flushed on
// its own.
func scriptChunks(r *scriptRun) (string, bool) {
	kind := "agent_message_chunk"
	if r.cmd == "thought-chunks" {
		kind = "agent_thought_chunk"
	}
	for _, f := range strings.Fields(r.rest) {
		b, err := base64.StdEncoding.DecodeString(f)
		if err != nil {
			return r.bad()
		}
		r.t.record(string(b))
		r.a.update(r.s.id, textChunk(kind, string(b)))
		r.a.flush()
	}
	if r.cmd == "chunks-hang" {
		return r.hang()
	}
	return r.end()
}

// scriptUsage is usage, usage-hang and usage-permission.
func scriptUsage(r *scriptRun) (string, bool) {
	if !r.a.usage(r.s, r.t, strings.Fields(r.rest)) {
		return r.bad()
	}
	switch r.cmd {
	case "usage-hang":
		return r.hang()
	case "usage-permission":
		return r.a.permission(r.s, r.t, 0), true
	}
	return r.end()
}

// scriptAvail is usage-hostile and fs-stall (fakeagent_avail.go).
func scriptAvail(r *scriptRun) (string, bool) { return r.a.avail(r.s, r.t, r.cmd, r.rest) }

// script runs one command. answer is false when the prompt must never be
// answered.
func (a *agent) script(s *session, t *turn, text, cmd, rest string) (stop string, answer bool) {
	r := &scriptRun{a: a, s: s, t: t, text: text, cmd: cmd, rest: rest}
	sc, ok := scriptsByName[cmd]
	if !ok {
		r.say("unknown command: " + text)
		return r.end()
	}
	return sc.run(r)
}

// many sends n requests at once (method and params from req(i), i = 0 …
// n-1), waits for every answer, and says "<name> <outcome>=<count> …"
// sorted by outcome: "ok" for a result without an outcome field,
// "selected:<optionId>" or "cancelled" for a permission outcome, "error:<code>"
// for an error.
func (a *agent) many(s *session, t *turn, name string, n int, req func(i int) (string, any)) {
	chans := make([]<-chan reply, n)
	for i := range chans {
		method, params := req(i)
		chans[i] = a.startCall(a.newID(), method, params)
	}
	a.flush()
	counts := map[string]int{}
	for _, ch := range chans {
		r := <-ch
		key := "ok"
		var res struct {
			Outcome *struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
			Action string `json:"action"`
		}
		switch {
		case r.err != nil:
			key = "error:" + strconv.Itoa(r.err.Code)
		case json.Unmarshal(r.result, &res) == nil && res.Action != "":
			key = "action:" + res.Action
		case json.Unmarshal(r.result, &res) == nil && res.Outcome != nil && res.Outcome.Outcome == "selected":
			key = "selected:" + res.Outcome.OptionID
		case res.Outcome != nil:
			key = res.Outcome.Outcome
		}
		counts[key]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := name
	for _, k := range keys {
		out += fmt.Sprintf(" %s=%d", k, counts[k])
	}
	a.say(s, t, out)
}

func codeOrOK(r reply) string {
	if r.err != nil {
		return strconv.Itoa(r.err.Code)
	}
	return "ok"
}

func (a *agent) tools(s *session, t *turn) {
	tc := a.toolCallID()
	path := filepath.Join(t.cwd, "hello.txt")
	a.update(s.id, map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": tc, "title": "Write hello.txt",
		"kind": "edit", "status": "pending",
		"locations": []map[string]string{{"path": path}},
		"content":   []map[string]any{{"type": "diff", "path": path, "oldText": nil, "newText": "hello\n"}},
		"rawInput":  map[string]string{"path": path, "content": "hello\n"},
	})
	a.update(s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": tc, "status": "in_progress"})
	a.update(s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": tc, "status": "completed",
		"rawOutput": map[string]bool{"ok": true}})
	a.update(s.id, map[string]any{"sessionUpdate": "plan", "entries": []map[string]string{
		{"content": "Write hello.txt", "priority": "high", "status": "completed"},
		{"content": "Report back", "priority": "medium", "status": "pending"},
	}})
}

func (a *agent) permission(s *session, t *turn, delay time.Duration) string {
	tc := a.toolCallID()
	a.update(s.id, map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": tc, "title": "Run make clean",
		"kind": "execute", "status": "pending", "rawInput": map[string]string{"command": "make clean"},
	})
	finish := func(ok bool, msg string) string {
		status := "failed"
		if ok {
			status = "completed"
		}
		a.update(s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": tc, "status": status})
		a.say(s, t, msg)
		if msg == "outcome: cancelled" || t.cancelled() {
			return "cancelled"
		}
		return "end_turn"
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-t.done:
			return finish(false, "outcome: cancelled")
		}
	}
	r := a.call("session/request_permission", map[string]any{
		"sessionId": s.id,
		"toolCall":  map[string]string{"toolCallId": tc, "title": "Run make clean", "kind": "execute", "status": "pending"},
		"options": []map[string]string{
			{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
			{"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
			{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
		},
	})
	if r.err != nil {
		return finish(false, fmt.Sprintf("outcome: error %d", r.err.Code))
	}
	var res struct {
		Outcome *struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(r.result, &res) != nil || res.Outcome == nil {
		return finish(false, "outcome: invalid")
	}
	switch res.Outcome.Outcome {
	case "selected":
		allowed := strings.HasPrefix(res.Outcome.OptionID, "allow-")
		return finish(allowed, "outcome: selected "+res.Outcome.OptionID)
	case "cancelled":
		return finish(false, "outcome: cancelled")
	}
	return finish(false, "outcome: invalid")
}

// flood writes count identical chunks, holding the write lock for about
// 64 KiB at a time so other messages can interleave between batches.
func (a *agent) flood(s *session, t *turn, count, size int) {
	line := marshal(request{JSONRPC: "2.0", Method: "session/update",
		Params: map[string]any{"sessionId": s.id, "update": textChunk("agent_message_chunk", floodText(size))}})
	line = append(line, '\n')
	const batch = 64 << 10
	for i := 0; i < count && !t.cancelled(); {
		a.wmu.Lock()
		for n := 0; i < count && n < batch; i++ {
			a.out.Write(line)
			n += len(line)
		}
		a.wmu.Unlock()
	}
	a.flush()
}

// MixedImage is the data of the image chunk of mixed's rounds.
const MixedImage = "iVBORw0KGgo="

// mixed sends rounds rounds of text chunks of both kinds around updates
// that are no text, as fast as possible (flushed at the end).
func (a *agent) mixed(s *session, t *turn, rounds int) {
	a.wmu.Lock()
	for i := 0; i < rounds && !t.cancelled(); i++ {
		for _, u := range []any{
			textChunk("agent_message_chunk", fmt.Sprintf("m%d.a é ", i)),
			textChunk("agent_message_chunk", fmt.Sprintf("m%d.b 😀 ", i)),
			textChunk("agent_thought_chunk", fmt.Sprintf("t%d.a ", i)),
			textChunk("agent_thought_chunk", fmt.Sprintf("t%d.b ", i)),
			map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "image", "mimeType": "image/png", "data": MixedImage}},
			textChunk("agent_message_chunk", fmt.Sprintf("m%d.c ", i)),
			map[string]any{"sessionUpdate": "tool_call", "toolCallId": fmt.Sprintf("mixed-%d", i), "title": fmt.Sprintf("Step %d", i), "kind": "other", "status": "completed"},
			textChunk("agent_message_chunk", fmt.Sprintf("m%d.d ", i)),
		} {
			a.out.Write(marshal(request{JSONRPC: "2.0", Method: "session/update", Params: map[string]any{"sessionId": s.id, "update": u}}))
			a.out.WriteByte('\n')
		}
	}
	a.out.Flush()
	a.wmu.Unlock()
}

// floodText is one flood chunk: size bytes ending with a space.
func floodText(size int) string {
	if size <= 0 {
		return ""
	}
	return FakeText(size-1) + " "
}

// TickSize is the length of a ticks chunk's text.
const TickSize = 64

// TickTimes reads the send times of the ticks in text: one ticks chunk's
// text, or several in a row (a hub may join chunks into one delta).
func TickTimes(text string) ([]time.Time, error) {
	if len(text)%TickSize != 0 {
		return nil, fmt.Errorf("acptest: %d bytes of ticks: not whole %d-byte chunks", len(text), TickSize)
	}
	var out []time.Time
	for ; text != ""; text = text[TickSize:] {
		ns, err := strconv.ParseInt(strings.TrimRight(text[:TickSize], " "), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("acptest: tick %q: %w", text[:TickSize], err)
		}
		out = append(out, time.Unix(0, ns))
	}
	return out, nil
}

// ticks sends count agent_message_chunks at rate per second, each flushed
// at once, whose text is the send time in Unix nanoseconds padded with
// spaces to TickSize bytes: a client computes each chunk's latency
// (TickTimes).
func (a *agent) ticks(s *session, t *turn, count, rate int) {
	interval := time.Second / time.Duration(rate)
	next := time.Now()
	for i := 0; i < count && !t.cancelled(); i++ {
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
		next = next.Add(interval)
		text := fmt.Sprintf("%-*d", TickSize, time.Now().UnixNano())
		a.notify("session/update", map[string]any{"sessionId": s.id, "update": textChunk("agent_message_chunk", text)})
		a.flush()
	}
}

// usage serves the usage command: used size amount|- currency [in out].
func (a *agent) usage(s *session, t *turn, f []string) bool {
	if len(f) != 4 && len(f) != 6 {
		return false
	}
	var n [4]int64
	for i, j := range []int{0, 1, 4, 5} {
		if j >= len(f) {
			break
		}
		v, err := strconv.ParseInt(f[j], 10, 64)
		if err != nil || v < 0 {
			return false
		}
		n[i] = v
	}
	u := map[string]any{"sessionUpdate": "usage_update", "used": n[0], "size": n[1]}
	if f[2] != "-" {
		amount, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return false
		}
		u["cost"] = map[string]any{"amount": amount, "currency": f[3]}
	}
	a.update(s.id, u)
	a.flush()
	if len(f) == 6 {
		t.mu.Lock()
		t.usage = map[string]any{"inputTokens": n[2], "outputTokens": n[3], "totalTokens": n[2] + n[3]}
		t.mu.Unlock()
	}
	return true
}
