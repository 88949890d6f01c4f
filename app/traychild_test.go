//go:build !headless && unix

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
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
	var report []byte
	testkit.Eventually(t, 20*time.Second, "the tray child to start", func() bool {
		var err error
		report, err = os.ReadFile(out)
		return err == nil
	})
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatal(err)
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
	// decideWith asks a permission in a thread of another client and has
	// the tray (with secret) decide it with d.
	decideWith := func(secret string, d hub.Decision) hub.DecisionResult {
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
		var pending hub.Permission
		testkit.Eventually(t, 20*time.Second, "a pending permission", func() bool {
			ps, err := tray.Permissions(ctx, hub.PermissionPending)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ps, func(p hub.Permission) bool { return p.ThreadID == th.ID })
			if i >= 0 {
				pending = ps[i]
			}
			return i >= 0
		})
		r, err := tray.DecideResult(ctx, pending.ID, d)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	decide := func(secret string) string {
		t.Helper()
		return decideWith(secret, hub.Decision{Outcome: hub.PermissionDeclined}).Permission.DecidedBy
	}
	if got := decide(rep.Secret); got != "tray" {
		t.Errorf("with the tray's secret: decidedBy %q, want tray", got)
	}
	// The tray's "Always deny in this thread": decided and remembered as
	// the tray; with a forged secret, as a client like any.
	always := hub.Decision{Outcome: hub.PermissionDeclined, Remember: hub.RememberThread}
	if r := decideWith(rep.Secret, always); r.Permission.DecidedBy != "tray" || r.Rule == nil || r.Rule.CreatedBy != "tray" || r.Rule.Decision != hub.RuleDeny {
		t.Errorf("remembered with the tray's secret: %+v rule %+v, want decided and created by tray", r.Permission, r.Rule)
	}
	if r := decideWith(strings.Repeat("0", 64), always); r.Permission.DecidedBy != "client:switchboard-tray" || r.Rule == nil || r.Rule.CreatedBy != "client:switchboard-tray" {
		t.Errorf("remembered with a forged secret: %+v rule %+v, want client:switchboard-tray", r.Permission, r.Rule)
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
