//go:build unix

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// Two hubs of one user never drive the same agent session: while the first
// has it open, the second's import is CONFLICT naming the first (its pid);
// once the first let it go (the thread deleted), the second can.
func TestSecondHubCannotDriveTheSameAgentSession(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cwd := t.TempDir()
	seed := seedSessions(t, []map[string]any{{"sessionId": "shared", "cwd": cwd, "title": "Shared", "history": [][2]string{{"q", "a"}}}})
	spec := func() []string { return []string{"FAKEAGENT_SESSION_CAPS=1", "FAKEAGENT_LOAD_SESSION=1", seed} }
	first := newHarness(t, nil, fakeSpec(t, "cli", spec()...))
	second := newHarness(t, nil, fakeSpec(t, "cli", spec()...))
	ctx := context.Background()
	req := hub.ImportSessionRequest{Agent: "cli", SessionID: "shared", Cwd: cwd}

	th, _, err := importSession(first.e, ctx, alice, req)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = importSession(second.e, ctx, alice, req)
	var herr *hub.Error
	if !errors.As(err, &herr) || herr.Code != hub.CodeConflict || herr.Details["reason"] != hub.ReasonSessionLocked {
		t.Fatalf("second hub's import: %v, want CONFLICT %s", err, hub.ReasonSessionLocked)
	}
	if !strings.Contains(herr.Message, fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(herr.Message, "another Switchboard hub") {
		t.Errorf("the error does not name the first hub: %q", herr.Message)
	}

	if err := first.e.DeleteThread(ctx, alice, th.ID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the second hub to import the session once the first let it go", func() bool {
		_, _, err := importSession(second.e, ctx, alice, req)
		return err == nil
	})
}
