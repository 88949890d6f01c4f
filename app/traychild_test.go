//go:build !headless && unix

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// TestTraySecret: the app hands the tray it starts a per-launch secret
// over an inherited descriptor, never in its argv or environment; with it
// the tray's decisions are recorded as "tray". Without it (a tray started
// by hand, a forged value, or the secret once the tray is stopped) the
// same client is recorded as client:switchboard-tray.
func TestTraySecret(t *testing.T) {
	_, _, h, cwd := bindingsHub(t)
	out := filepath.Join(t.TempDir(), "tray.json")
	t.Setenv(fakeTrayOutEnv, out)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stop := h.startTrayProgram(exe)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	var rep fakeTrayReport
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(out); err == nil {
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tray child did not start")
		}
	}
	if len(rep.Secret) != 64 {
		t.Fatalf("the tray read secret %q from its descriptor, want 64 hex characters", rep.Secret)
	}
	for _, s := range append(rep.Args, rep.Env...) {
		if strings.Contains(s, rep.Secret) {
			t.Fatalf("the secret is in the tray's argv or environment: %q", s)
		}
	}

	ctx := context.Background()
	decide := func(secret string) string {
		t.Helper()
		th, err := h.engine.CreateThread(ctx, hub.Caller{ClientID: "alice"}, hub.CreateThreadRequest{Agent: "fake", Cwd: cwd})
		if err != nil {
			t.Fatal(err)
		}
		alice := client.New(h.dataDir, client.Options{ClientID: "alice"})
		if _, err := alice.StartTurn(ctx, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
			t.Fatal(err)
		}
		tray := client.New(h.dataDir, client.Options{ClientID: "switchboard-tray", All: true, TraySecret: secret})
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			ps, err := tray.Permissions(ctx, hub.PermissionPending)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if p.ThreadID == th.ID {
					d, err := tray.Decide(ctx, p.ID, hub.Decision{Outcome: hub.PermissionDeclined})
					if err != nil {
						t.Fatal(err)
					}
					return d.DecidedBy
				}
			}
		}
		t.Fatal("no pending permission")
		return ""
	}
	if got := decide(rep.Secret); got != "tray" {
		t.Errorf("with the tray's secret: decidedBy %q, want tray", got)
	}
	if got := decide(strings.Repeat("0", 64)); got != "client:switchboard-tray" {
		t.Errorf("with a forged secret: decidedBy %q, want client:switchboard-tray", got)
	}
	if got := decide(""); got != "client:switchboard-tray" {
		t.Errorf("without a secret: decidedBy %q, want client:switchboard-tray", got)
	}
	stop()
	stopped = true
	if got := decide(rep.Secret); got != "client:switchboard-tray" {
		t.Errorf("the secret of a stopped tray: decidedBy %q, want client:switchboard-tray", got)
	}
}
