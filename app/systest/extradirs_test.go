//go:build linux

package systest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EAdditionalDirectories creates threads with an extra folder
// through the real `switchboard serve` (POST /v1/threads
// additionalDirectories, New thread's "Also give access to…"): the thread
// keeps it, an agent that advertises sessionCapabilities.additionalDirectories
// gets it in session/new and one that does not gets no such field, and
// either may read a file in it through the hub (fs/read_text_file) without
// a question. A relative or missing folder is 400 naming it.
func TestE2EAdditionalDirectories(t *testing.T) {
	bins := buildE2E(t)
	recDirs, recPlain := filepath.Join(t.TempDir(), "dirs.jsonl"), filepath.Join(t.TempDir(), "plain.jsonl")
	h := newHub(t, bins, hubConfig{"agents": map[string]agentConf{
		"dirs":  fakeAgentConf(t, "FAKEAGENT_ADDITIONAL_DIRS=1", "FAKEAGENT_RECORD="+recDirs),
		"plain": fakeAgentConf(t, "FAKEAGENT_RECORD="+recPlain),
	}})
	extra := t.TempDir()
	if err := os.WriteFile(filepath.Join(extra, "notes.txt"), []byte("from the extra folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		agent, rec string
		sent       bool
	}{{"dirs", recDirs, true}, {"plain", recPlain, false}} {
		var th apiThread
		var raw struct {
			Thread struct {
				ID                    string   `json:"id"`
				AdditionalDirectories []string `json:"additionalDirectories"`
			} `json:"thread"`
		}
		h.call("POST", "/v1/threads", map[string]any{"agent": tt.agent, "cwd": t.TempDir(), "additionalDirectories": []string{extra + "/"}}, 201, &raw)
		if got := raw.Thread.AdditionalDirectories; len(got) != 1 || got[0] != extra {
			t.Fatalf("%s: the thread's additionalDirectories %v, want [%s] (cleaned)", tt.agent, got, extra)
		}
		th.ID = raw.Thread.ID
		tu := h.startTurn(th.ID, "fs-read "+filepath.Join(extra, "notes.txt"))
		if got := h.waitTurn(th.ID, tu.ID, 60*time.Second); got.Status != "completed" || got.Output != "fs-read ok: from the extra folder" {
			t.Errorf("%s: reading in the extra folder: %+v", tt.agent, got)
		}
		if ps := h.permissions("pending"); len(ps) != 0 {
			t.Errorf("%s: the read asked: %+v", tt.agent, ps)
		}
		rec, err := os.ReadFile(tt.rec)
		if err != nil {
			t.Fatal(err)
		}
		var newLine string
		for _, l := range strings.Split(string(rec), "\n") {
			if strings.Contains(l, `"session/new"`) {
				newLine = l
			}
		}
		want := `"additionalDirectories":["` + extra + `"]`
		if got := strings.Contains(newLine, want); got != tt.sent {
			t.Errorf("%s: session/new %s: additionalDirectories sent %v, want %v", tt.agent, newLine, got, tt.sent)
		}
		if h.thread(th.ID).ID == "" {
			t.Errorf("%s: the thread is gone", tt.agent)
		}
	}
	for _, bad := range []string{"rel/dir", filepath.Join(extra, "missing")} {
		r := h.do("POST", "/v1/threads", map[string]any{"agent": "dirs", "cwd": t.TempDir(), "additionalDirectories": []string{bad}})
		if r.status != 400 || !strings.Contains(string(r.body), "additionalDirectories") {
			t.Errorf("extra folder %q: %s, want 400 naming additionalDirectories", bad, r)
		}
	}
}
