//go:build unix

package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// gitInit makes dir a repository with one commit of files.
func gitInit(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	run := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("init", "-q", "-b", "main")
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-qm", "init")
}

// TestHeldRequestWaitsForCheckpoint: the prompt goes to the agent while
// the checkpoint before the turn is still being taken; the agent's
// fs/write_text_file waits until the checkpoint is stored, then runs, and
// the checkpoint holds the file as it was before the turn, byte for byte.
func TestHeldRequestWaitsForCheckpoint(t *testing.T) {
	h := newHarness(t, nil)
	before := "before\r\nnul\x00end"
	gitInit(t, h.cwd, map[string]string{"a.txt": before})
	entered, release := make(chan struct{}, 4), make(chan struct{})
	engine.SetCheckpointGate(h.e, func(string) {
		entered <- struct{}{}
		<-release
	})
	th := h.thread("fake")
	sub := h.watch(th)
	path := filepath.Join(h.cwd, "a.txt")
	turn, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "fs-write " + path + " written by the agent"})
	if err != nil {
		t.Fatal(err) // StartTurn returned while the checkpoint is held: it did not wait for it
	}
	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the checkpoint job never started")
	}
	until(t, sub, hub.EventTurnStarted)
	testkit.Never(t, 300*time.Millisecond, "the agent's write ran before the checkpoint was stored", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) != before
	})
	close(release)
	done := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
	if done.ID != turn.ID || done.Output != "fs-write ok" {
		t.Fatalf("turn %+v, want fs-write ok", done)
	}
	if b, _ := os.ReadFile(path); string(b) != "written by the agent" {
		t.Fatalf("a.txt = %q after the held write", b)
	}
	cps, err := h.e.ListCheckpoints(context.Background(), alice, th.ID)
	if err != nil || len(cps) != 1 || cps[0].TurnID != turn.ID {
		t.Fatalf("checkpoints %+v, %v", cps, err)
	}
	res, err := h.e.RestoreCheckpoint(context.Background(), alice, th.ID, turn.ID)
	if err != nil || !slices.Equal(res.Files, []string{"a.txt"}) {
		t.Fatalf("restore: %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(path); string(b) != before {
		t.Fatalf("restored a.txt = %q, want %q byte for byte", b, before)
	}
}

// TestCancelDuringCheckpoint: a cancel while the checkpoint is held ends
// the turn without waiting for it; the checkpoint is stored afterwards.
func TestCancelDuringCheckpoint(t *testing.T) {
	h := newHarness(t, nil)
	gitInit(t, h.cwd, map[string]string{"a.txt": "a\n"})
	entered, release := make(chan struct{}, 4), make(chan struct{})
	engine.SetCheckpointGate(h.e, func(string) {
		entered <- struct{}{}
		<-release
	})
	th := h.thread("fake")
	sub := h.watch(th)
	turn, err := h.e.StartTurn(context.Background(), alice, th.ID, hub.TurnInput{Input: "hang"})
	if err != nil {
		t.Fatal(err)
	}
	<-entered
	got, err := h.e.CancelTurn(context.Background(), alice, turn.ID)
	if err != nil || got.Status != hub.TurnCancelled {
		t.Fatalf("cancel during the checkpoint: %+v, %v", got, err)
	}
	until(t, sub, hub.EventTurnCompleted)
	close(release)
	cps, err := h.e.ListCheckpoints(context.Background(), alice, th.ID) // waits for the lane
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints after the cancel %+v, %v", cps, err)
	}
	if ends, _ := gitwork.TurnEnds(context.Background(), h.cwd, th.ID); len(ends) != 1 {
		t.Errorf("turn-end snapshots %+v, want the cancelled turn's", ends)
	}
}
