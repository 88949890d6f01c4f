//go:build linux

package systest

import (
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Fake secrets, built at run time so that no source file holds one whole.
var (
	e2eGitHubToken = "ghp_" + strings.Repeat("Sw1tchB0ard", 4)[:36]
	e2eAWSKeyID    = "AKIA" + "SWITCHBOARD12345"
	e2eAnthropic   = "sk-ant-api03-" + strings.Repeat("e2eKey_", 8)
	e2eKeyBody     = strings.Repeat("MIIEpAIBAAKCAQEAswitchboardE2E0123456789abcdef+/\n", 20)
	e2eKeyBlock    = "-----BEGIN RSA PRIVATE KEY-----\n" + e2eKeyBody + "-----END RSA PRIVATE KEY-----"
)

// chunksPrompt is the fake agent's "chunks" command: each part one
// agent_message_chunk, base64 in the prompt.
func chunksPrompt(cmd string, parts ...string) string {
	var b strings.Builder
	b.WriteString(cmd)
	for _, p := range parts {
		b.WriteString(" " + base64.StdEncoding.EncodeToString([]byte(p)))
	}
	return b.String()
}

// rawFilesHolding lists the database files (database, WAL, shared-memory
// index) and the hub's log whose raw bytes contain s.
func (h *hubProc) rawFilesHolding(s string) []string {
	h.t.Helper()
	db := filepath.Join(h.dataDir, "switchboard.db")
	var found []string
	for _, p := range []string{db, db + "-wal", db + "-shm", h.log.Name()} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			h.t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			found = append(found, filepath.Base(p))
		}
	}
	return found
}

// turnText runs a turn over SSE and returns its streamed events' raw data
// and message text (and in data's last element, the thought text),
// checking that the stored turn says the same.
func (h *hubProc) turnText(threadID, input string) (data []string, text string) {
	h.t.Helper()
	s := h.mustSSE("POST", "/v1/threads/"+threadID+"/turns", map[string]string{"input": input})
	turnID := s.resp.Header.Get("X-Switchboard-Turn-ID")
	var b, thought strings.Builder
	var streamed []apiEvent
	// A terminal the agent opens is a hub permission (SECURITY.md): the
	// user approves it, as they would.
	deadline := time.Now().Add(60 * time.Second)
	for {
		m, ok := s.next(time.Until(deadline))
		if !ok {
			break
		}
		if m.event == "permission_required" && m.ev.Permission != nil {
			h.decide(m.ev.Permission.ID, map[string]string{"outcome": "approved"})
		}
		data = append(data, m.data)
		streamed = append(streamed, m.ev)
		switch m.event {
		case "message_delta":
			b.WriteString(m.ev.Text)
		case "thought_delta":
			thought.WriteString(m.ev.Text)
		}
	}
	defer func() { data = append(data, "thought: "+thought.String()) }()
	stored := h.turn(threadID, turnID)
	if stored.Output != b.String() {
		h.t.Errorf("stored output %q, streamed %q", stored.Output, b.String())
	}
	if len(stored.Events) != len(streamed) {
		h.t.Errorf("%d events stored, %d streamed", len(stored.Events), len(streamed))
	}
	for i := range min(len(stored.Events), len(streamed)) {
		if stored.Events[i].Text != streamed[i].Text || stored.Events[i].Seq != streamed[i].Seq {
			h.t.Errorf("event %d: stored %+v, streamed %+v", i, stored.Events[i], streamed[i])
		}
	}
	return data, b.String()
}

// Secrets in what an agent streams and in what the user types are
// redacted before they are stored, so the stream, the history and the
// database files never hold them, even split across chunks.
func e2eRedaction(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, nil) // redaction.enabled: true by default
	th := h.newThread("fake", t.TempDir())

	half := len(e2eGitHubToken) / 2
	tests := []struct {
		name, input string
		wantText    string // the message text streamed and stored
		wantData    string // in some event's raw data
	}{
		{"token split across two chunks",
			chunksPrompt("chunks", "Push with "+e2eGitHubToken[:half], e2eGitHubToken[half:]+" and tell me."),
			"Push with [REDACTED:github-token] and tell me.", ""},
		{"private key across three chunks",
			chunksPrompt("chunks", "key:\n"+e2eKeyBlock[:20], e2eKeyBlock[20:400], e2eKeyBlock[400:]+"\nbye"),
			"key:\n[REDACTED:private-key]\nbye", ""},
		{"thought chunks",
			chunksPrompt("thought-chunks", "maybe "+e2eAnthropic[:12], e2eAnthropic[12:]+" works"),
			"", `thought: maybe [REDACTED:anthropic-key] works`},
		{"tool call rawInput",
			"tool-raw " + base64.StdEncoding.EncodeToString([]byte(`{"command":"aws s3 ls","env":{"AWS_ACCESS_KEY_ID":"`+e2eAWSKeyID+`"}}`)),
			"", `"AWS_ACCESS_KEY_ID":"[REDACTED:aws-access-key-id]"`},
		{"terminal output",
			// printf assembles the token: the prompt never holds it whole.
			"terminal printf ghp_%s%s " + e2eGitHubToken[4:half] + " " + e2eGitHubToken[half:],
			"", `[REDACTED:github-token]`},
		{"the user's own prompt", "echo my key is " + e2eAnthropic,
			"my key is [REDACTED:anthropic-key]", `"input":"echo my key is [REDACTED:anthropic-key]"`},
	}
	for _, tc := range tests {
		data, text := h.turnText(th.ID, tc.input)
		all := strings.Join(data, "\n")
		if tc.wantText != "" && text != tc.wantText {
			t.Errorf("%s: message text %q, want %q", tc.name, text, tc.wantText)
		}
		if tc.wantData != "" && !strings.Contains(all, tc.wantData) {
			t.Errorf("%s: no %s in the events:\n%s", tc.name, tc.wantData, all)
		}
		for _, s := range []string{e2eGitHubToken, e2eAWSKeyID, e2eAnthropic, "MIIEpAIBAAKCAQEAswitchboard", "BEGIN RSA PRIVATE KEY"} {
			if strings.Contains(all, s) {
				t.Errorf("%s: the stream holds %q:\n%s", tc.name, s, all)
			}
		}
		if tc.name == "terminal output" && !strings.Contains(all, `"event":"terminal_output"`) && !strings.Contains(all, `"type":"terminal_output"`) {
			t.Errorf("terminal output: no terminal_output event:\n%s", all)
		}
	}
	// An agent that prints a secret where the hub logs it (a line that is
	// not JSON-RPC) and in its stderr (a failed turn's error) and dies.
	slack := "xoxb-" + "424242424242-e2eSwitchboardSecret"
	crash := h.startTurn(th.ID, "crash-with "+base64.StdEncoding.EncodeToString([]byte("oops "+slack)))
	if done := h.waitTurn(th.ID, crash.ID, 30*time.Second); done.Status != "failed" || !strings.Contains(done.Error, "oops [REDACTED:slack-token]") {
		t.Errorf("crashed turn: %s %q; want failed with the redacted stderr", done.Status, done.Error)
	}
	if !strings.Contains(h.logText(), "oops [REDACTED:slack-token]") {
		t.Errorf("the hub log does not show the agent's line, redacted:\n%s", tail(h.logText(), 2000))
	}
	for _, s := range []string{e2eGitHubToken, e2eAWSKeyID, e2eAnthropic, "MIIEpAIBAAKCAQEAswitchboard", slack} {
		if f := h.rawFilesHolding(s); len(f) > 0 {
			t.Errorf("%q reached %v", s, f)
		}
	}
}

// With redaction off, a secret is stored as sent; deleting the thread and
// compacting takes it out of the database, its WAL and shared-memory
// files, with the hub running and again with it stopped.
func e2eDeleteAndCompact(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, hubConfig{"redaction": map[string]any{"enabled": false}})
	secret := e2eGitHubToken[:20] + "DeleteMe" + e2eGitHubToken[28:]
	kept := h.newThread("fake", t.TempDir())
	th := h.newThread("fake", t.TempDir())
	if _, text := h.turnText(th.ID, chunksPrompt("chunks", "say "+secret[:10], secret[10:])); text != "say "+secret {
		t.Fatalf("with redaction off, the text is %q", text)
	}
	h.turnText(kept.ID, "echo still here")
	if f := h.rawFilesHolding(secret); len(f) == 0 {
		t.Fatal("the secret is in no file before the deletion: the test proves nothing")
	}
	h.call("DELETE", "/v1/threads/"+th.ID, nil, 204, nil)
	h.call("GET", "/v1/threads/"+th.ID, nil, 404, nil)

	compact := func(want string) {
		t.Helper()
		cmd := exec.Command(h.bin, "db", "compact", "--data-dir", h.dataDir)
		cmd.Env = hubEnv()
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("db compact: %v\n%s", err, out)
		}
	}
	compact("compacted (the hub is running")
	if f := h.rawFilesHolding(secret); len(f) > 0 {
		t.Errorf("after deleting and compacting, the secret is in %v", f)
	}
	if hist := h.history(kept.ID, false); len(hist) != 1 || hist[0].Output != "still here" {
		t.Errorf("the other thread's history: %+v", hist)
	}
	h.stop()
	compact("vacuumed")
	if f := h.rawFilesHolding(secret); len(f) > 0 {
		t.Errorf("after the vacuum, the secret is in %v", f)
	}
	h.start()
	if hist := h.history(kept.ID, false); len(hist) != 1 || hist[0].Output != "still here" {
		t.Errorf("after the vacuum, the other thread's history: %+v", hist)
	}
	var ev struct{ Threads []apiThread }
	h.call("GET", "/v1/threads", nil, 200, &ev)
	if len(ev.Threads) != 1 || ev.Threads[0].ID != kept.ID {
		t.Errorf("threads after the restart: %+v", ev.Threads)
	}
}
