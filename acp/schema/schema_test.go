package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateDirOnRecord re-validates a kept record (ACP_RECORD=dir), for
// working on the validator without rerunning a suite.
func TestValidateDirOnRecord(t *testing.T) {
	// ACP_RECORD names a kept record to check again (the path a failed
	// run prints); without it, testdata/record: one real session of the
	// fake agent (sub-agents, compaction, notices) recorded by the
	// systest suite, which must validate.
	dir := os.Getenv("ACP_RECORD")
	if dir == "" {
		dir = filepath.Join("testdata", "record")
	}
	n, err := ValidateDir(dir)
	if n == 0 {
		t.Fatalf("nothing checked in %s", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func frames(conn int64, lines ...string) []Frame {
	var out []Frame
	for _, l := range lines {
		sent := strings.HasPrefix(l, ">")
		out = append(out, Frame{Conn: conn, Sent: sent, Msg: json.RawMessage(l[1:])})
	}
	return out
}

// TestTrafficCatchesWhatTheSchemaForbids: a bad params, a bad result paired
// to its request by id, an unknown method, all reported; valid traffic and
// a non-ACP connection are not.
func TestTrafficCatchesWhatTheSchemaForbids(t *testing.T) {
	good := frames(1,
		`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`,
		`>{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		`<{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/tmp/a"}}`,
		`>{"jsonrpc":"2.0","id":7,"result":{"content":"x"}}`,
		`>{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`,
		`<{"jsonrpc":"2.0","method":"_vendor/thing","params":{"any":1}}`,
	)
	tr := NewTraffic()
	for _, f := range good {
		tr.Add(f)
	}
	tr.Add(Frame{Conn: 2, Sent: true, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"echo","params":1}`)})
	if len(tr.Invalid) != 0 {
		t.Fatalf("valid traffic reported: %v", tr.Invalid)
	}
	bad := frames(3,
		`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"one"}}`,
		`>{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","method":"editor/ping","params":{}}`,
	)
	tr = NewTraffic()
	for _, f := range bad {
		tr.Add(f)
	}
	want := []string{"initialize response", "session/new request", `"editor/ping" is in neither`}
	if len(tr.Invalid) != len(want) {
		t.Fatalf("want %d problems, got %d: %v", len(want), len(tr.Invalid), tr.Invalid)
	}
	for i, w := range want {
		if !strings.Contains(tr.Invalid[i], w) {
			t.Errorf("problem %d = %q, want it to name %q", i, tr.Invalid[i], w)
		}
	}
}

// TestUnstableOnlyMethodsUseTheUnstableFile: session/fork is only in the
// unstable file and is checked against it.
func TestUnstableOnlyMethodsUseTheUnstableFile(t *testing.T) {
	f, err := fileFor("session/fork", Request)
	if err != nil || f.name != "schema.unstable.json" {
		t.Fatalf("session/fork: %v, %v", f, err)
	}
	f, err = fileFor("session/new", Request)
	if err != nil || f.name != "schema.json" {
		t.Fatalf("session/new: %v", err)
	}
}

// TestUnstableOnlyUpdateKindsUseTheUnstableFile: a session/update whose
// kind only the unstable file has (subagent_update) is checked against
// it — valid there, still refused when malformed — and one of a stable
// kind against the stable file.
func TestUnstableOnlyUpdateKindsUseTheUnstableFile(t *testing.T) {
	ok := `{"sessionId":"s","update":{"sessionUpdate":"subagent_update","sessionId":"s-sub-1","title":"Explore"}}`
	if err := checkAs("session/update", Notification, json.RawMessage(ok)); err != nil {
		t.Errorf("a well-formed subagent_update: %v", err)
	}
	bad := `{"sessionId":"s","update":{"sessionUpdate":"subagent_update","title":"no session id"}}`
	if err := checkAs("session/update", Notification, json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "schema.unstable.json") {
		t.Errorf("a subagent_update without its sessionId: %v, want refused by the unstable file", err)
	}
	stableBad := `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}`
	if err := checkAs("session/update", Notification, json.RawMessage(stableBad)); err == nil || !strings.Contains(err.Error(), "(SessionNotification, schema.json)") {
		t.Errorf("an agent_message_chunk without content: %v, want refused by the stable file", err)
	}
}

// TestSchemaFilesAreThePinnedOnes: the embedded files are the ones in v1/
// and carry the protocol version the client speaks.
func TestSchemaFilesAreThePinnedOnes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("v1", "schema.json"))
	if err != nil || string(b) != string(stableJSON) {
		t.Fatal("v1/schema.json differs from the embedded copy")
	}
	s, err := Stable()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Methods(Request)) < 10 {
		t.Fatalf("stable requests: %v", s.Methods(Request))
	}
}
