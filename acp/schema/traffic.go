package schema

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Frame is one recorded JSON-RPC line (the format acp.RecordDirEnv writes).
type Frame struct {
	Conn int64           `json:"conn"`
	Sent bool            `json:"sent"`
	Msg  json.RawMessage `json:"msg"`
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// Traffic checks the frames of one process's connections in order. Only a
// connection whose first message is an `initialize` request is ACP: the
// JSON-RPC layer's own tests speak made-up methods and are skipped.
type Traffic struct {
	conns map[int64]*connState
	// Invalid lists what did not validate, one line each.
	Invalid []string
	// Checked counts the messages validated.
	Checked int
	// Tolerated counts the peer's messages that are known deviations
	// (deviations.go), not validated.
	Tolerated int
}

type connState struct {
	acp     bool
	pending [2]map[string]string // request id → method, by who sent it (0: us, 1: peer)
	refused map[string]string    // the peer's invalid requests awaiting our answer: id → problem
	seen    map[string]int       // notifications checked, by method and update kind
}

// PerKindLimit is how many notifications of one method and update kind a
// connection has checked: past it they are the flood tests' repeats, and
// validating hundreds of thousands of chunks would only slow the suite.
const PerKindLimit = 1000

// NewTraffic is an empty checker.
func NewTraffic() *Traffic { return &Traffic{conns: map[int64]*connState{}} }

// Add checks one frame.
func (t *Traffic) Add(fr Frame) {
	var m message
	if err := json.Unmarshal(fr.Msg, &m); err != nil {
		return // not JSON-RPC: the peer's garbage, tested elsewhere
	}
	st := t.conns[fr.Conn]
	if st == nil {
		st = &connState{acp: m.Method == "initialize" && m.ID != nil,
			pending: [2]map[string]string{{}, {}}, refused: map[string]string{}, seen: map[string]int{}}
		t.conns[fr.Conn] = st
	}
	if !st.acp {
		return
	}
	if m.ID == nil && m.Method != "" {
		kind := m.Method + " " + updateKind(m.Params)
		if st.seen[kind]++; st.seen[kind] > PerKindLimit {
			return
		}
	}
	side := 1
	if fr.Sent {
		side = 0
	}
	if deviationOf(m, side == 0) != nil {
		if m.ID != nil {
			st.pending[side][string(m.ID)] = m.Method
		}
		t.Tolerated++
		return
	}
	if side == 0 && m.Method == "" && m.ID != nil {
		if problem, ok := st.refused[string(m.ID)]; ok {
			delete(st.refused, string(m.ID))
			if errorCode(m.Error) == invalidParams {
				t.Tolerated++ // we refused it, as we should
			} else {
				t.Invalid = append(t.Invalid, problem+"\n    and Switchboard did not refuse it with invalid params")
			}
		}
	}
	t.Checked++
	err := st.check(m, side)
	if err == nil {
		return
	}
	problem := fmt.Sprintf("%v\n    message: %s", err, clip(fr.Msg))
	if side == 1 && m.Method != "" && m.ID != nil {
		// A peer's request the schema forbids is fine when we refuse it:
		// the hostile-agent tests send those on purpose.
		st.refused[string(m.ID)] = problem
		return
	}
	t.Invalid = append(t.Invalid, problem)
}

const invalidParams = -32602

func errorCode(raw json.RawMessage) int {
	var e struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return 0
	}
	return e.Code
}

// Close reports the peer's invalid requests never answered.
func (t *Traffic) Close() {
	for _, st := range t.conns {
		for _, problem := range st.refused {
			t.Invalid = append(t.Invalid, problem+"\n    and Switchboard never answered it")
		}
		st.refused = map[string]string{}
	}
}

func (st *connState) check(m message, side int) error {
	switch {
	case strings.HasPrefix(m.Method, "_"):
		return nil // extension method: its params are the extension's own
	case m.Method != "" && m.ID != nil:
		st.pending[side][string(m.ID)] = m.Method
		return checkAs(m.Method, Request, m.Params)
	case m.Method != "":
		return checkAs(m.Method, Notification, m.Params)
	case m.ID != nil:
		method, ok := st.pending[1-side][string(m.ID)]
		if !ok {
			return nil // an answer to nothing: the JSON-RPC layer logs it
		}
		delete(st.pending[1-side], string(m.ID))
		if strings.HasPrefix(method, "_") {
			return nil
		}
		if m.Error != nil {
			f, err := fileFor(method, Response)
			if err != nil {
				f = stable // the answer to a method ACP does not have is still an Error
			}
			if err := f.Validate("Error", m.Error); err != nil {
				return fmt.Errorf("error answering %s: %v", method, err)
			}
			return nil
		}
		return checkAs(method, Response, m.Result)
	}
	return nil
}

func checkAs(method string, k Kind, v json.RawMessage) error {
	f, err := fileFor(method, k)
	if err != nil {
		return err
	}
	// An update kind only the unstable file has (subagent_update,
	// plan_update …) is sent only to a client that advertised it: its
	// session/update is checked against that file, as its methods are.
	if method == "session/update" && f == stable {
		if kind := updateKind(v); kind != "" && !stable.hasUpdateKind(kind) && unstable.hasUpdateKind(kind) {
			f = unstable
		}
	}
	// The client system prompt (systemPrompt on session/new, load and
	// resume; sessionCapabilities.systemPrompt in initialize's answer) is
	// only in the unstable file: a message that carries it is checked
	// against that file, where its shape is defined.
	if f == stable && carriesSystemPrompt(v) {
		f = unstable
	}
	if err := f.Validate(f.Def(method, k), v); err != nil {
		return fmt.Errorf("%s %s (%s, %s): %v", method, strings.ToLower(string(k)), f.Def(method, k), f.name, err)
	}
	return nil
}

// ValidateDir checks every <pid>.jsonl under dir (see acp.RecordDirEnv)
// and returns what did not validate, joined, or nil; and how many messages
// were checked.
func ValidateDir(dir string) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return 0, err
	}
	var problems []string
	checked := 0
	for _, name := range files {
		t := NewTraffic()
		f, err := os.Open(name)
		if err != nil {
			return checked, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<16), 4<<20)
		for sc.Scan() {
			var fr Frame
			if json.Unmarshal(sc.Bytes(), &fr) == nil {
				t.Add(fr)
			}
		}
		f.Close()
		t.Close()
		checked += t.Checked
		for _, p := range t.Invalid {
			problems = append(problems, filepath.Base(name)+": "+p)
		}
	}
	if len(problems) > 0 {
		return checked, errors.New(strings.Join(problems, "\n"))
	}
	return checked, nil
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// RecordSuite is for a TestMain: it makes a folder for the frame record,
// exports it in env (acp.RecordDirEnv, so that the processes the tests
// start record too) and returns it with finish, which validates what was
// recorded once m.Run returned code: a message that does not validate
// turns a passing run into a failing one, and says which message and why.
func RecordSuite(env string) (dir string, finish func(code int) int) {
	dir, err := os.MkdirTemp("", "acp-record-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "acp schema:", err)
		return "", func(code int) int { return 1 }
	}
	os.Setenv(env, dir)
	return dir, func(code int) int {
		checked, err := ValidateDir(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: ACP messages that do not validate against the official schema (@agentclientprotocol/sdk %s; the record is kept in %s):\n%v\n", SDKVersion, dir, err)
			return 1
		}
		os.RemoveAll(dir)
		if testingVerbose() {
			fmt.Fprintf(os.Stderr, "acp schema: %d messages validated\n", checked)
		}
		return code
	}
}

func testingVerbose() bool {
	for _, a := range os.Args {
		if a == "-test.v=true" || a == "-test.v" {
			return true
		}
	}
	return false
}

// carriesSystemPrompt reports whether v (a message's params or result)
// holds the unstable client system prompt: a top-level systemPrompt, or
// agentCapabilities.sessionCapabilities.systemPrompt.
func carriesSystemPrompt(v json.RawMessage) bool {
	var m struct {
		SystemPrompt      json.RawMessage `json:"systemPrompt"`
		AgentCapabilities struct {
			SessionCapabilities struct {
				SystemPrompt json.RawMessage `json:"systemPrompt"`
			} `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	if json.Unmarshal(v, &m) != nil {
		return false
	}
	return len(m.SystemPrompt) > 0 || len(m.AgentCapabilities.SessionCapabilities.SystemPrompt) > 0
}
