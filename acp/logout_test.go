//go:build unix

package acp

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest"
)

// Logout signs the agent out where it advertises auth.logout: a session
// opens after authenticate and is refused again after logout; an agent
// that does not advertise it gets no call (ErrUnsupported).
func TestLogoutSignsTheAgentOut(t *testing.T) {
	ctx := context.Background()
	cred := filepath.Join(t.TempDir(), "cred")
	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_AUTH_REQUIRED=1", "FAKEAGENT_CRED_FILE="+cred)
	a, err := Launch(ctx, Command{Path: path, Args: args, Env: env}, newRecorder(), AgentOptions{Process: ProcessOptions{Grace: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	if err := a.Authenticate(ctx, "fake-login"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.NewSession(ctx, t.TempDir(), nil); err != nil {
		t.Fatalf("signed in, session/new: %v", err)
	}
	if err := a.Logout(ctx); err != nil {
		t.Fatalf("logout: %v", err)
	}
	if _, err := a.NewSession(ctx, t.TempDir(), nil); err == nil {
		t.Fatal("after logout, session/new succeeded: want authentication required")
	}

	path, args, env = acptest.FakeAgentArgv(t)
	b, err := Launch(ctx, Command{Path: path, Args: args, Env: env}, newRecorder(), AgentOptions{Process: ProcessOptions{Grace: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	if err := b.Logout(ctx); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("logout on an agent without auth.logout: %v, want ErrUnsupported", err)
	}
}
