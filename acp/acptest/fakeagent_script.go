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
		resp := map[string]any{"stopReason": stop}
		t.mu.Lock()
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

// script runs one command. answer is false when the prompt must never be
// answered.
func (a *agent) script(s *session, t *turn, text, cmd, rest string) (stop string, answer bool) {
	const endTurn = "end_turn"
	bad := func() (string, bool) {
		a.say(s, t, "bad arguments: "+text)
		return endTurn, true
	}
	switch cmd {
	case "echo":
		a.say(s, t, rest)
	case "chunks", "thought-chunks", "chunks-hang":
		// Each argument, base64 (so the prompt need not hold the text),
		// is one chunk, flushed on its own.
		kind := "agent_message_chunk"
		if cmd == "thought-chunks" {
			kind = "agent_thought_chunk"
		}
		for _, f := range strings.Fields(rest) {
			b, err := base64.StdEncoding.DecodeString(f)
			if err != nil {
				return bad()
			}
			t.record(string(b))
			a.update(s.id, textChunk(kind, string(b)))
			a.flush()
		}
		if cmd == "chunks-hang" {
			<-t.done
			return "cancelled", true
		}
	case "tool-raw":
		// A tool call whose rawInput is the argument, base64 JSON.
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
		if err != nil || !json.Valid(b) {
			return bad()
		}
		a.update(s.id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": a.toolCallID(),
			"title": "Run it", "kind": "execute", "status": "pending", "rawInput": json.RawMessage(b)})
	case "think":
		a.update(s.id, textChunk("agent_thought_chunk", "Thinking about the request."))
		a.say(s, t, "Done thinking.")
	case "tools":
		a.tools(s, t)
	case "permission", "slow-permission":
		delay := 0
		if cmd == "slow-permission" {
			v, ok := intArgs(rest, 1)
			if !ok {
				return bad()
			}
			delay = v[0]
		}
		return a.permission(s, t, time.Duration(delay)*time.Millisecond), true
	case "unknown-update":
		sid := string(marshal(s.id))
		a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + sid +
			`,"update":{"sessionUpdate":"future_kind_xyz","futureField":{"nested":[1,2,3],"flag":true},"note":"from the future","_meta":{"fake":"yes"}}}}`))
		a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + sid +
			`,"update":{"sessionUpdate":"usage_update","used":1234,"size":200000,"cost":{"amount":0.0123,"currency":"USD"}}}}`))
	case "usage", "usage-hang":
		if !a.usage(s, t, strings.Fields(rest)) {
			return bad()
		}
		if cmd == "usage-hang" {
			<-t.done
			return "cancelled", true
		}
	case "raw-update":
		// The update exactly as given: hostile shapes reach the client as an agent would send them.
		if !json.Valid([]byte(rest)) {
			return bad()
		}
		a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` +
			string(marshal(s.id)) + `,"update":` + rest + `}}`))
	case "ask":
		var req struct {
			ToolCall json.RawMessage `json:"toolCall"`
			Options  json.RawMessage `json:"options"`
		}
		if json.Unmarshal([]byte(rest), &req) != nil || req.ToolCall == nil || req.Options == nil {
			return bad()
		}
		r := a.call("session/request_permission", map[string]any{"sessionId": s.id, "toolCall": req.ToolCall, "options": req.Options})
		switch {
		case r.err != nil:
			a.say(s, t, fmt.Sprintf("outcome: error %d", r.err.Code))
		default:
			a.say(s, t, "outcome: "+string(r.result))
		}
	case "elicit":
		var req map[string]json.RawMessage
		if json.Unmarshal([]byte(rest), &req) != nil || req == nil {
			return bad()
		}
		params := map[string]any{"sessionId": s.id}
		for k, v := range req {
			params[k] = v
		}
		r := a.call("elicitation/create", params)
		if r.err != nil {
			a.say(s, t, fmt.Sprintf("elicit: error %d", r.err.Code))
		} else {
			a.say(s, t, "elicit: "+string(r.result))
		}
	case "commands":
		cmds := []map[string]any{}
		for _, name := range strings.Fields(rest) {
			cmds = append(cmds, map[string]any{"name": name, "description": "Run " + name})
		}
		a.update(s.id, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": cmds})
	case "vendor":
		a.notify("_fakeagent/status", map[string]string{"state": "busy"})
		a.notify("fakeagent/notice", map[string]string{"text": "no underscore"})
		r := a.call("_fakeagent/query", map[string]string{"sessionId": s.id})
		a.say(s, t, "vendor "+codeOrOK(r))
	case "garbage":
		for _, l := range []string{
			"this is not JSON",
			"",
			`{"jsonrpc":"2.0","method":`,
			`[1,2,3]`,
			`{"hello":"world"}`,
			`{"jsonrpc":"2.0","id":987654321,"result":{}}`,
		} {
			a.writeLine([]byte(l))
		}
		a.say(s, t, "after garbage")
	case "bigline":
		v, ok := intArgs(rest, 1)
		if !ok {
			return bad()
		}
		// Built by hand: FakeText needs no escaping, and encoding/json is
		// slow on many MiB in a race-enabled binary.
		a.writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` +
			string(marshal(s.id)) + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` +
			FakeText(v[0]) + `"}}}}`))
	case "flood":
		v, ok := intArgs(rest, 2)
		if !ok {
			return bad()
		}
		a.flood(s, t, v[0], v[1])
	case "mixed":
		v, ok := intArgs(rest, 1)
		if !ok {
			return bad()
		}
		a.mixed(s, t, v[0])
	case "ticks":
		v, ok := intArgs(rest, 2)
		if !ok || v[1] <= 0 {
			return bad()
		}
		a.ticks(s, t, v[0], v[1])
	case "hang":
		<-t.done
		return "cancelled", true
	case "hang-hard":
		select {}
	case "crash":
		v, ok := intArgs(rest, 1, 3)
		if !ok {
			return bad()
		}
		a.say(s, t, "about to crash")
		a.flush()
		fmt.Fprint(a.errOut, "fatal: simulated crash\n")
		a.exit(v[0])
		select {}
	case "crash-with":
		// The argument, base64, as a line that is not JSON on stdout and
		// on stderr, then exit 3.
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
		if err != nil {
			return bad()
		}
		a.writeLine(b)
		a.flush()
		fmt.Fprintf(a.errOut, "%s\n", b)
		a.exit(3)
		select {}
	case "noeol":
		a.wmu.Lock()
		a.out.Write(marshal(request{JSONRPC: "2.0", Method: "session/update",
			Params: map[string]any{"sessionId": s.id, "update": textChunk("agent_message_chunk", "no newline at end")}}))
		a.out.Flush()
		a.exit(0)
		select {}
	case "grandchild":
		v, ok := intArgs(rest, 1, 300)
		if !ok {
			return bad()
		}
		a.grandchild(s, t, v[0])
		select {}
	case "daemon":
		v, ok := intArgs(rest, 1, 300)
		if !ok {
			return bad()
		}
		a.daemon(s, t, v[0])
	case "fs-read":
		path, _ := splitWord(rest)
		r := a.call("fs/read_text_file", map[string]string{"sessionId": s.id, "path": path})
		if r.err != nil {
			a.say(s, t, "fs-read error "+r.errString())
			break
		}
		var res struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(r.result, &res) != nil || res.Content == nil {
			a.say(s, t, "fs-read error invalid result: "+string(r.result))
			break
		}
		a.say(s, t, "fs-read ok: "+*res.Content)
	case "fs-read-many":
		n, path := splitWord(rest)
		v, ok := intArgs(n, 1)
		if !ok || path == "" {
			return bad()
		}
		a.many(s, t, "fs-read-many", v[0], func(int) (string, any) {
			return "fs/read_text_file", map[string]string{"sessionId": s.id, "path": path}
		})
	case "elicit-many":
		n, q := splitWord(rest)
		v, ok := intArgs(n, 1)
		var req map[string]json.RawMessage
		if !ok || json.Unmarshal([]byte(q), &req) != nil || req == nil {
			return bad()
		}
		a.many(s, t, "elicit-many", v[0], func(int) (string, any) {
			params := map[string]any{"sessionId": s.id}
			for k, v := range req {
				params[k] = v
			}
			return "elicitation/create", params
		})
	case "permissions":
		v, ok := intArgs(rest, 1)
		if !ok {
			return bad()
		}
		a.many(s, t, "permissions", v[0], func(i int) (string, any) {
			return "session/request_permission", map[string]any{
				"sessionId": s.id,
				"toolCall":  map[string]string{"toolCallId": fmt.Sprintf("many-%d", i), "title": fmt.Sprintf("Step %d", i), "kind": "execute", "status": "pending"},
				"options": []map[string]string{
					{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
					{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
				},
			}
		})
	case "plant-git":
		a.say(s, t, plantGit(t.cwd, rest))
	case "fs-write":
		path, content := splitWord(rest)
		if i := strings.IndexAny(rest, " \t\r\n"); i >= 0 {
			content = rest[i+1:] // one blank only: the rest is verbatim
		}
		r := a.call("fs/write_text_file", map[string]string{"sessionId": s.id, "path": path, "content": content})
		if r.err != nil {
			a.say(s, t, "fs-write error "+r.errString())
		} else {
			a.say(s, t, "fs-write ok")
		}
	case "terminal":
		args := strings.Fields(rest)
		if len(args) == 0 {
			return bad()
		}
		a.terminal(s, t, args)
	case "terminal-bg":
		args := strings.Fields(rest)
		if len(args) == 0 {
			return bad()
		}
		a.terminalBackground(s, t, args)
	case "terminal-in":
		dir, cmdline := splitWord(rest)
		args := strings.Fields(cmdline)
		if dir == "" || len(args) == 0 {
			return bad()
		}
		a.terminalWith(s, t, dir, nil, args)
	case "terminal-env":
		kv, cmdline := splitWord(rest)
		k, v, ok := strings.Cut(kv, "=")
		args := strings.Fields(cmdline)
		if !ok || len(args) == 0 {
			return bad()
		}
		a.terminalWith(s, t, t.cwd, map[string]string{k: v}, args)
	case "ask-terminal":
		args := strings.Fields(rest)
		if len(args) == 0 {
			return bad()
		}
		a.askTerminal(s, t, args)
	case "ask-run":
		var spec askRunSpec
		if json.Unmarshal([]byte(rest), &spec) != nil || len(spec.ToolCall) == 0 || spec.Command == "" {
			return bad()
		}
		a.askRun(s, t, spec)
	case "cancel-request":
		id := a.newID()
		ch := a.startCall(id, "fs/read_text_file", map[string]string{
			"sessionId": s.id, "path": filepath.Join(t.cwd, "cancel-request.txt")})
		a.notify("$/cancel_request", map[string]any{"requestId": id})
		r := <-ch
		if r.err != nil {
			a.say(s, t, fmt.Sprintf("cancel-request error %d", r.err.Code))
		} else {
			a.say(s, t, "cancel-request result")
		}
	case "stderr":
		v, ok := intArgs(rest, 1)
		if !ok {
			return bad()
		}
		fmt.Fprint(a.errOut, FakeText(v[0]))
	case "ids":
		params := map[string]string{"sessionId": s.id, "path": "/nonexistent"}
		r0 := <-a.startCall(json.RawMessage("0"), "fs/read_text_file", params)
		rabc := <-a.startCall(json.RawMessage(`"abc"`), "fs/read_text_file", params)
		a.say(s, t, "ids 0="+codeOrOK(r0)+" abc="+codeOrOK(rabc))
	case "usage-hostile", "fs-stall":
		return a.avail(s, t, cmd, rest) // fakeagent_avail.go
	default:
		a.say(s, t, "unknown command: "+text)
	}
	return endTurn, true
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
