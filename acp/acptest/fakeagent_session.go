package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// historyCap bounds the agent text kept per turn for session/load.
const historyCap = 64 << 10

type session struct {
	id, cwd     string
	mode, model string
	fast        bool // the boolean option "fast" (FAKEAGENT_BOOL_OPTION)
	history     []exchange
	turn        *turn // the running prompt, nil when idle
	updatedAt   time.Time
	// title and updated are a seeded session's, listed verbatim.
	title, updated string
	// always holds the command lines the user allowed "always" (the
	// agent's own allow_always, ask-always-terminal): run without asking.
	always map[string]bool
}

type exchange struct{ user, agent string }

// turn is one running session/prompt.
type turn struct {
	done         chan struct{} // closed by session/cancel
	once         sync.Once
	ignoreCancel bool   // hang-hard
	cwd          string // the session's cwd when the turn started

	mu    sync.Mutex
	agent strings.Builder // agent message text, for history
	usage map[string]any  // the prompt response's usage (the usage command)
	fail  *rpcError       // the prompt's answer is this error (rate-limit-error)
}

func (t *turn) cancel() {
	if !t.ignoreCancel {
		t.once.Do(func() { close(t.done) })
	}
}

func (t *turn) cancelled() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *turn) record(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := historyCap - t.agent.Len(); room > 0 {
		if len(text) > room {
			text = text[:room]
		}
		t.agent.WriteString(text)
	}
}

func (t *turn) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.agent.String()
}

// defaultModes are the modes offered without FAKEAGENT_MODES; the first is
// the start mode.
var defaultModes = []string{"default", "plan"}

// availableModes is the modes list of a SessionModeState: each id with its
// name, the id capitalised.
func availableModes(ids []string) []map[string]string {
	out := make([]map[string]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, map[string]string{"id": id, "name": strings.ToUpper(id[:1]) + id[1:]})
	}
	return out
}

var modelValues = []map[string]string{
	{"value": "fake-small", "name": "Fake Small"},
	{"value": "fake-large", "name": "Fake Large"},
}

// modes and configOptions must be called with a.mu held.
func (s *session) modes(ids []string) map[string]any {
	return map[string]any{"currentModeId": s.mode, "availableModes": availableModes(ids)}
}

func (s *session) configOptions() []map[string]any {
	opts := []map[string]any{{
		"id": "model", "name": "Model", "category": "model", "type": "select",
		"currentValue": s.model, "options": modelValues,
	}}
	if boolOption {
		opts = append(opts, map[string]any{"id": "fast", "name": "Fast mode", "type": "boolean", "currentValue": s.fast})
	}
	return opts
}

// boolOption: FAKEAGENT_BOOL_OPTION=1 offers the boolean config option
// "fast" (set only as {type: "boolean", value: true|false}).
var boolOption = os.Getenv("FAKEAGENT_BOOL_OPTION") == "1"

// params decodes p into v and checks that the named fields are present and
// not null. It answers -32602 and returns false otherwise.
func (a *agent) params(id, p json.RawMessage, v any, required ...string) bool {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(p, &fields); err != nil || fields == nil {
		a.replyError(id, codeInvalidParams, "Invalid params: params must be an object")
		return false
	}
	for _, f := range required {
		if raw, ok := fields[f]; !ok || string(raw) == "null" {
			a.replyError(id, codeInvalidParams, "Invalid params: missing "+f)
			return false
		}
	}
	if err := json.Unmarshal(p, v); err != nil {
		a.replyError(id, codeInvalidParams, "Invalid params: "+err.Error())
		return false
	}
	return true
}

// lookup returns the session, or answers -32002. Call with a.mu held.
func (a *agent) lookup(id json.RawMessage, sid string) *session {
	s := a.sessions[sid]
	if s == nil {
		a.replyError(id, codeNotFound, "Resource not found: session "+sid)
	}
	return s
}

func (a *agent) addSession(sid, cwd string) *session {
	s := &session{id: sid, cwd: cwd, mode: a.opts.modes[0], model: "fake-small", updatedAt: time.Now()}
	a.sessions[sid] = s
	a.order = append(a.order, sid)
	return s
}

func (a *agent) handleNotification(method string, params json.RawMessage) {
	switch method {
	case "session/cancel":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(params, &p) != nil {
			a.logf("unreadable session/cancel params: %s", params)
			return
		}
		a.mu.Lock()
		if s := a.sessions[p.SessionID]; s != nil && s.turn != nil {
			s.turn.cancel()
		}
		a.mu.Unlock()
	default:
		// $/cancel_request, vendor and unknown notifications: ignored.
	}
}

type sessionParams struct {
	SessionID    string            `json:"sessionId"`
	Cwd          string            `json:"cwd"`
	McpServers   []json.RawMessage `json:"mcpServers"`
	SystemPrompt *struct {
		Mode    string `json:"mode"`
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
	} `json:"systemPrompt"`
}

// checkSystemPrompt answers -32602 and returns false for a systemPrompt
// the agent does not take (FAKEAGENT_SYSTEM_PROMPT): as the unstable
// schema asks, a mode not advertised is refused, never taken as another.
func (a *agent) checkSystemPrompt(id json.RawMessage, p sessionParams) bool {
	sp := p.SystemPrompt
	if sp == nil {
		return true
	}
	why := ""
	switch {
	case a.opts.systemPrompt == "":
		why = "systemPrompt is not supported"
	case sp.Mode != "append" && (sp.Mode != "override" || a.opts.systemPrompt != "override"):
		why = fmt.Sprintf("systemPrompt mode %q is not supported", sp.Mode)
	case len(sp.Content) == 0:
		why = "systemPrompt content is empty"
	}
	for _, b := range sp.Content {
		if b.Type != "text" {
			why = fmt.Sprintf("systemPrompt content block %q is not supported", b.Type)
		}
	}
	if why != "" {
		a.replyError(id, codeInvalidParams, "Invalid params: "+why)
		return false
	}
	return true
}

func (a *agent) handleRequest(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "session/new", "session/load", "session/resume", "session/close", "session/delete":
		a.recordRequest(a.opts.record, method, params)
	case "session/prompt":
		a.recordRequest(a.opts.prompts, method, params)
	}
	switch method {
	case "initialize":
		a.initialize(id, params)
	case "logout":
		if !a.opts.authRequired {
			a.replyError(id, codeMethodNotFound, "Method not found: "+method)
			return
		}
		if a.opts.credFile != "" {
			_ = os.Remove(a.opts.credFile)
		}
		a.mu.Lock()
		a.authed = false
		a.mu.Unlock()
		a.reply(id, struct{}{})
	case "authenticate":
		var p struct {
			MethodID string `json:"methodId"`
		}
		if !a.params(id, params, &p, "methodId") {
			return
		}
		if a.opts.authRequired && p.MethodID != "fake-login" {
			a.replyError(id, codeInvalidParams, "Invalid params: unknown auth method "+p.MethodID)
			return
		}
		a.mu.Lock()
		a.authed = true
		a.mu.Unlock()
		a.reply(id, struct{}{})
	case "session/new":
		a.sessionNew(id, params)
	case "session/load":
		if !a.opts.loadSession {
			a.replyError(id, codeMethodNotFound, "Method not found: "+method)
			return
		}
		a.sessionLoad(id, params, true)
	case "session/resume":
		if !a.opts.sessionCaps {
			a.replyError(id, codeMethodNotFound, "Method not found: "+method)
			return
		}
		a.sessionLoad(id, params, false)
	case "session/list":
		if !a.opts.sessionCaps {
			a.replyError(id, codeMethodNotFound, "Method not found: "+method)
			return
		}
		a.sessionList(id, params)
	case "session/close", "session/delete":
		if !a.opts.sessionCaps {
			a.replyError(id, codeMethodNotFound, "Method not found: "+method)
			return
		}
		var p sessionParams
		if !a.params(id, params, &p, "sessionId") {
			return
		}
		a.mu.Lock()
		s := a.lookup(id, p.SessionID)
		if s != nil {
			if s.turn != nil {
				s.turn.cancel()
			}
			delete(a.sessions, p.SessionID)
			for i, sid := range a.order {
				if sid == p.SessionID {
					a.order = append(a.order[:i:i], a.order[i+1:]...)
					break
				}
			}
		}
		a.mu.Unlock()
		if s != nil {
			a.reply(id, struct{}{})
		}
	case "session/set_mode":
		a.setMode(id, params)
	case "session/set_config_option":
		a.setConfigOption(id, params)
	case "session/prompt":
		a.prompt(id, params)
	default:
		a.replyError(id, codeMethodNotFound, "Method not found: "+method)
	}
}

func (a *agent) initialize(id, params json.RawMessage) {
	var p struct {
		ProtocolVersion int `json:"protocolVersion"`
	}
	if !a.params(id, params, &p, "protocolVersion") {
		return
	}
	time.Sleep(a.opts.initDelay)
	sessionCaps := map[string]any{}
	if a.opts.sessionCaps {
		sessionCaps = map[string]any{"close": struct{}{}, "delete": struct{}{}, "list": struct{}{}, "resume": struct{}{}}
	}
	if a.opts.extraDirs {
		sessionCaps["additionalDirectories"] = struct{}{}
	}
	switch a.opts.systemPrompt {
	case "append":
		sessionCaps["systemPrompt"] = struct{}{}
	case "override":
		sessionCaps["systemPrompt"] = map[string]any{"mode": map[string]any{"override": struct{}{}}}
	}
	authMethods := []any{}
	if a.opts.authRequired {
		authMethods = append(authMethods, map[string]string{"id": "fake-login", "name": "Fake login"})
		if a.opts.credFile != "" {
			authMethods = append(authMethods, map[string]any{"type": "terminal", "id": "fake-terminal", "name": "Fake terminal login",
				"args": []string{FakeLoginArg}, "env": map[string]string{"FAKE_LOGIN_TERM": "1"}})
		}
		if a.opts.keyVar != "" {
			authMethods = append(authMethods, map[string]any{"type": "env_var", "id": "fake-key", "name": "Fake API key",
				"description": "A key for the fake agent", "varName": a.opts.keyVar})
		}
	}
	mcpCaps := map[string]bool{"http": false, "sse": false}
	for _, t := range strings.Split(a.opts.mcpCaps, ",") {
		if _, ok := mcpCaps[t]; ok {
			mcpCaps[t] = true
		}
	}
	authCaps := map[string]any{}
	if a.opts.authRequired {
		authCaps["logout"] = struct{}{}
	}
	promptCaps := map[string]bool{"image": true, "audio": true, "embeddedContext": true}
	if a.opts.textOnly {
		promptCaps = map[string]bool{}
	}
	a.reply(id, map[string]any{
		"protocolVersion": a.opts.protocolVersion,
		"agentCapabilities": map[string]any{
			"loadSession":         a.opts.loadSession,
			"promptCapabilities":  promptCaps,
			"sessionCapabilities": sessionCaps,
			"mcpCapabilities":     mcpCaps,
			"auth":                authCaps,
		},
		"agentInfo":   map[string]string{"name": "fakeagent", "version": "1.0.0"},
		"authMethods": authMethods,
	})
}

// checkAuth answers -32000 and returns false while authentication is
// required and missing. Call with a.mu held.
func (a *agent) checkAuth(id json.RawMessage) bool {
	if a.opts.authRequired && !a.authed && !a.opts.hasCreds() {
		a.replyError(id, codeAuthRequired, "Authentication required")
		return false
	}
	return true
}

func (a *agent) checkCwd(id json.RawMessage, cwd string) bool {
	if !filepath.IsAbs(cwd) {
		a.replyError(id, codeInvalidParams, fmt.Sprintf("Invalid params: cwd %q is not absolute", cwd))
		return false
	}
	return true
}

func (a *agent) sessionNew(id, params json.RawMessage) {
	var p sessionParams
	if !a.params(id, params, &p, "cwd", "mcpServers") || !a.checkCwd(id, p.Cwd) || !a.checkSystemPrompt(id, p) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.checkAuth(id) {
		return
	}
	a.nextSession++
	sid := fmt.Sprintf("fake-%d", a.nextSession)
	if a.opts.uniqueSessions {
		sid = fmt.Sprintf("fake-%d-%d", os.Getpid(), a.nextSession)
	}
	s := a.addSession(sid, p.Cwd)
	a.reply(id, map[string]any{"sessionId": s.id, "modes": s.modes(a.opts.modes), "configOptions": s.configOptions()})
}

// sessionLoad serves session/load (replay) and session/resume.
func (a *agent) sessionLoad(id, params json.RawMessage, replay bool) {
	var p sessionParams
	required := []string{"sessionId", "cwd"}
	if replay {
		required = append(required, "mcpServers")
	}
	if !a.params(id, params, &p, required...) || !a.checkCwd(id, p.Cwd) || !a.checkSystemPrompt(id, p) {
		return
	}
	a.mu.Lock()
	if !a.checkAuth(id) {
		a.mu.Unlock()
		return
	}
	s := a.sessions[p.SessionID]
	var history []exchange
	if s == nil {
		s = a.addSession(p.SessionID, p.Cwd)
		history = []exchange{{user: "previous prompt", agent: "previous answer"}}
	} else {
		s.cwd = p.Cwd
		history = append(history, s.history...)
	}
	result := map[string]any{"modes": s.modes(a.opts.modes), "configOptions": s.configOptions()}
	a.mu.Unlock()
	if replay {
		for _, h := range history {
			a.update(p.SessionID, textChunk("user_message_chunk", h.user))
			if h.agent != "" {
				a.update(p.SessionID, textChunk("agent_message_chunk", h.agent))
			}
		}
	}
	a.reply(id, result)
}

func (a *agent) sessionList(id, params json.RawMessage) {
	var p struct {
		Cwd    *string `json:"cwd"`
		Cursor *string `json:"cursor"`
	}
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if !a.params(id, params, &p) {
		return
	}
	if p.Cwd != nil && !a.checkCwd(id, *p.Cwd) {
		return
	}
	a.mu.Lock()
	sessions := []map[string]any{}
	for _, sid := range a.order {
		s := a.sessions[sid]
		if p.Cwd != nil && s.cwd != *p.Cwd {
			continue
		}
		title, updated := "Fake session "+s.id, s.updatedAt.UTC().Format(time.RFC3339)
		if s.title != "" || s.updated != "" {
			title, updated = s.title, s.updated
		}
		sessions = append(sessions, map[string]any{"sessionId": s.id, "cwd": s.cwd, "title": title, "updatedAt": updated})
	}
	a.mu.Unlock()
	result := map[string]any{"sessions": sessions}
	if n := a.opts.listPage; n > 0 {
		from := 0
		if p.Cursor != nil {
			i, err := strconv.Atoi(*p.Cursor)
			if err != nil || i < 0 || i > len(sessions) {
				a.replyError(id, codeInvalidParams, "Invalid params: unknown cursor")
				return
			}
			from = i
		}
		to := min(from+n, len(sessions))
		result["sessions"] = sessions[from:to]
		if to < len(sessions) {
			result["nextCursor"] = strconv.Itoa(to)
		}
	}
	a.reply(id, result)
}

func (a *agent) setMode(id, params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	if !a.params(id, params, &p, "sessionId", "modeId") {
		return
	}
	if !slices.Contains(a.opts.modes, p.ModeID) {
		a.replyError(id, codeInvalidParams, "Invalid params: unknown mode "+p.ModeID)
		return
	}
	a.mu.Lock()
	s := a.lookup(id, p.SessionID)
	if s != nil {
		s.mode = p.ModeID
	}
	a.mu.Unlock()
	if s == nil {
		return
	}
	a.update(p.SessionID, map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": p.ModeID})
	a.reply(id, struct{}{})
}

func (a *agent) setConfigOption(id, params json.RawMessage) {
	var p struct {
		SessionID string          `json:"sessionId"`
		ConfigID  string          `json:"configId"`
		Type      string          `json:"type"`
		Raw       json.RawMessage `json:"value"`
		Value     string          `json:"-"`
	}
	if !a.params(id, params, &p, "sessionId", "configId", "value") {
		return
	}
	if boolOption && p.ConfigID == "fast" {
		var b bool
		if p.Type != "boolean" || json.Unmarshal(p.Raw, &b) != nil {
			a.replyError(id, codeInvalidParams, "Invalid params: fast is a boolean option: {type: \"boolean\", value: true|false}")
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if s := a.lookup(id, p.SessionID); s != nil {
			s.fast = b
			a.reply(id, map[string]any{"configOptions": s.configOptions()})
		}
		return
	}
	if json.Unmarshal(p.Raw, &p.Value) != nil {
		a.replyError(id, codeInvalidParams, "Invalid params: value must be a string")
		return
	}
	if p.ConfigID != "model" {
		a.replyError(id, codeInvalidParams, "Invalid params: unknown config option "+p.ConfigID)
		return
	}
	if p.Value != "fake-small" && p.Value != "fake-large" {
		a.replyError(id, codeInvalidParams, "Invalid params: unknown value "+p.Value)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.lookup(id, p.SessionID); s != nil {
		s.model = p.Value
		a.reply(id, map[string]any{"configOptions": s.configOptions()})
	}
}

// update sends a session/update notification.
func (a *agent) update(sid string, upd any) {
	a.notify("session/update", map[string]any{"sessionId": sid, "update": upd})
}

func textChunk(kind, text string) map[string]any {
	return map[string]any{"sessionUpdate": kind, "content": map[string]string{"type": "text", "text": text}}
}

// recordRequest appends {"method","params"} to file (FAKEAGENT_RECORD's
// or FAKEAGENT_PROMPTS'), if set: a test reads what the agent received.
func (a *agent) recordRequest(file, method string, params json.RawMessage) {
	if file == "" {
		return
	}
	line, _ := json.Marshal(map[string]any{"method": method, "params": params})
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}

// FakeLoginArg runs the fake agent as its own terminal sign-in program.
const FakeLoginArg = "--fake-login"

// fakeLogin is the terminal sign-in: it asks for a code on out and reads
// it from in; "1234" writes FAKEAGENT_CRED_FILE and answers 0.
func fakeLogin(in io.Reader, out io.Writer) int {
	fmt.Fprint(out, "Fake login. Enter the code: ")
	line, _ := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(line) != "1234" {
		fmt.Fprintln(out, "Wrong code.")
		return 1
	}
	if err := os.WriteFile(os.Getenv("FAKEAGENT_CRED_FILE"), []byte("signed in\n"), 0o600); err != nil {
		fmt.Fprintln(out, "Cannot store the credentials:", err)
		return 2
	}
	fmt.Fprintln(out, "Signed in.")
	return 0
}

// hasCreds reports whether FAKEAGENT_CRED_FILE exists, or the variable
// FAKEAGENT_KEY_VAR names is set.
func (o options) hasCreds() bool {
	if o.keyVar != "" && os.Getenv(o.keyVar) != "" {
		return true
	}
	if o.credFile == "" {
		return false
	}
	_, err := os.Stat(o.credFile)
	return err == nil
}
