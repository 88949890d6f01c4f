//go:build unix

package acptest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// Two agent processes attached to one shared fake agent: each gets its own
// agent (its own session "fake-1"), served by this test process, and each
// exits 0 once its stdin is closed.
func TestSharedFakeAgents(t *testing.T) {
	dir, err := os.MkdirTemp("", "fa") // a short path: socket names are capped
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.Buffer{}
	served := make(chan error, 1)
	go func() { served <- ServeFakeAgents(ln, logs) }()

	peers := []*peer{startAgent(t, AttachEnv+"="+sock), startAgent(t, AttachEnv+"="+sock)}
	for i, p := range peers {
		sid := p.session()
		if sid != "fake-1" {
			t.Errorf("agent %d: session %q, want fake-1 (one agent per attached process)", i, sid)
		}
		r, before := p.result(p.prompt(sid, "echo shared"))
		if stopReason(t, r) != "end_turn" || len(before) != 1 || before[0].update(t).Content.Text != "shared" {
			t.Errorf("agent %d: echo answered %s after %d updates", i, r.raw, len(before))
		}
	}
	for i, p := range peers {
		if code := p.exit(); code != 0 {
			t.Errorf("attached process %d exited %d; stderr: %s", i, code, p.stderr)
		}
	}
	ln.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeFakeAgents: %v", err)
	}
	if s := logs.String(); s != "" {
		t.Errorf("server logged: %s", s)
	}
}

// An attached process whose server is gone fails at once instead of
// pretending to be an agent.
func TestAttachWithoutServer(t *testing.T) {
	p := startAgent(t, AttachEnv+"="+filepath.Join(t.TempDir(), "none"))
	if code := p.exit(); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
