package contract_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/hub/httpapi"
	"github.com/switchboard-hub/switchboard/store"
)

func TestMain(m *testing.M) {
	acptest.RunFakeAgentIfRequested()
	os.Exit(m.Run())
}

const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

var (
	alice = hub.Caller{ClientID: "alice"}
	bob   = hub.Caller{ClientID: "bob"}
)

// fixedSettings is a SettingsService that reads one value (the config
// file's service lives in app/config; the contract is the shape).
type fixedSettings struct{ s hub.Settings }

func (f fixedSettings) Settings(context.Context) (hub.Settings, error) { return f.s, nil }
func (f fixedSettings) UpdateSettings(context.Context, hub.SettingsPatch) (hub.Settings, error) {
	return hub.Settings{}, hub.Errorf(hub.CodeInvalidArgument, "read-only")
}

var wantSettings = hub.Settings{ConfigFile: "/contract/config.yaml", UI: hub.UISettings{Theme: "dark"}}

// local is a hub in this process: an engine over a fresh store with the
// fake agent, the fixed settings, and no installer nor sign-in.
func local(t *testing.T) hub.Services {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path, args, env := acptest.FakeAgentArgv(t)
	e, err := engine.New(context.Background(), engine.Options{Store: db, Config: engine.DefaultConfig(),
		Agents:       []acp.AgentSpec{{ID: "fake", Name: "Fake", Command: acp.Command{Path: path, Args: args, Env: env}}},
		AgentOptions: acp.AgentOptions{Process: acp.ProcessOptions{Grace: 300 * time.Millisecond}}})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.Close(ctx)
		db.Close()
	})
	svcs := e.Services()
	svcs.Settings = fixedSettings{wantSettings}
	return svcs
}

// overAPI serves a local hub with hub/httpapi on a loopback port and
// returns hub/client's Services of it.
func overAPI(t *testing.T) hub.Services {
	t.Helper()
	srv := httpapi.New(local(t), httpapi.Options{Token: token})
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if err := <-served; err != http.ErrServerClosed {
			t.Errorf("Serve: %v", err)
		}
	})
	c := client.ForHub(client.NewHub("http://"+l.Addr().String(), token), client.Options{ClientID: "contract"})
	return c.Services()
}

// impls are the implementations of hub.Services the suite holds to the
// same answers.
var impls = []struct {
	name string
	open func(*testing.T) hub.Services
}{
	{"engine", local},
	{"api", overAPI},
}

// each runs check against every implementation.
func each(t *testing.T, check func(t *testing.T, s hub.Services)) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			t.Parallel()
			check(t, im.open(t))
		})
	}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := hub.ErrorCode(err); got != code || err == nil {
		t.Fatalf("%s: %v (code %q), want %s", what, err, got, code)
	}
}

func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

// waitTurn reads sub until the turn's turn_completed and returns the turn
// as History then has it.
func waitTurn(t *testing.T, ctx context.Context, sub *hub.Subscription, turnID string) {
	t.Helper()
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				t.Fatal("the thread's events ended before the turn did")
			}
			if ev.Type == hub.EventTurnCompleted && ev.TurnID == turnID {
				return
			}
		case <-ctx.Done():
			t.Fatal("the turn did not complete")
		}
	}
}

func TestThreadsAndTurns(t *testing.T) {
	each(t, func(t *testing.T, s hub.Services) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		agents := must[[]hub.Agent](t, "ListAgents")(s.Service.ListAgents(ctx))
		if len(agents) != 1 || agents[0].ID != "fake" {
			t.Fatalf("agents: %+v", agents)
		}
		cwd := t.TempDir()
		th := must[hub.Thread](t, "CreateThread")(s.Service.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: cwd, Title: "first"}))
		if th.ID == "" || th.Title != "first" || th.Agent != "fake" {
			t.Fatalf("created: %+v", th)
		}
		if got := must[hub.Thread](t, "GetThread")(s.Service.GetThread(ctx, alice, th.ID)); got.ID != th.ID {
			t.Fatalf("GetThread: %+v", got)
		}
		_, err := s.Service.GetThread(ctx, bob, th.ID)
		wantCode(t, "another client's thread", err, hub.CodeNotFound)
		_, err = s.Service.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "nobody", Cwd: cwd})
		wantCode(t, "an unknown agent", err, hub.CodeInvalidArgument)
		if got := must[hub.Thread](t, "RenameThread")(s.Service.RenameThread(ctx, alice, th.ID, "renamed")); got.Title != "renamed" {
			t.Fatalf("renamed: %+v", got)
		}
		page := must[hub.ThreadPage](t, "ListThreads")(s.Service.ListThreads(ctx, alice, 0, ""))
		if len(page.Threads) != 1 || page.Threads[0].ID != th.ID {
			t.Fatalf("alice's threads: %+v", page.Threads)
		}
		if page := must[hub.ThreadPage](t, "ListThreads")(s.Service.ListThreads(ctx, bob, 0, "")); len(page.Threads) != 0 {
			t.Fatalf("bob sees %+v", page.Threads)
		}

		// OpenSession: the thread's session before any turn, with its modes;
		// another client's thread is not found.
		opened := must[hub.Thread](t, "OpenSession")(s.Service.OpenSession(ctx, alice, th.ID))
		if opened.ID != th.ID || !strings.Contains(string(opened.Modes), `"currentModeId":"default"`) {
			t.Fatalf("OpenSession: %+v (modes %s)", opened, opened.Modes)
		}
		_, err = s.Service.OpenSession(ctx, bob, th.ID)
		wantCode(t, "opening another client's thread's session", err, hub.CodeNotFound)

		sub := must[*hub.Subscription](t, "Subscribe")(s.Service.Subscribe(ctx, alice, th.ID, 0))
		defer sub.Close()
		tu := must[hub.Turn](t, "StartTurn")(s.Service.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "hello"}))
		waitTurn(t, ctx, sub, tu.ID)
		hist := must[[]hub.TurnHistory](t, "History")(s.Service.History(ctx, alice, th.ID, true, false))
		if len(hist) != 1 || hist[0].ID != tu.ID || hist[0].Status != hub.TurnCompleted || len(hist[0].Events) == 0 {
			t.Fatalf("history: %+v", hist)
		}
		_, err = s.Service.CancelTurn(ctx, alice, "turn_unknown")
		wantCode(t, "cancelling an unknown turn", err, hub.CodeNotFound)

		wantGone(t, s, th.ID, s.Service.DeleteThread(ctx, alice, th.ID))
	})
}

// wantGone checks that a thread deleted without an error (err) is then
// NOT_FOUND.
func wantGone(t *testing.T, s hub.Services, id string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("deleting %s: %v", id, err)
	}
	_, err = s.Service.GetThread(context.Background(), alice, id)
	wantCode(t, "a deleted thread", err, hub.CodeNotFound)
}

func TestWork(t *testing.T) {
	each(t, func(t *testing.T, s hub.Services) {
		ctx := context.Background()
		if s.Work == nil {
			t.Fatal("the engine's work is missing")
		}
		_, err := s.Work.GitFolder(ctx, alice, "relative/path")
		wantCode(t, "GitFolder of a relative path", err, hub.CodeInvalidArgument)
		dir := t.TempDir()
		if gf := must[hub.GitFolder](t, "GitFolder")(s.Work.GitFolder(ctx, alice, dir)); gf.Git {
			t.Fatalf("a new temp dir is in git: %+v", gf)
		}
		th := must[hub.Thread](t, "CreateThread")(s.Service.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: dir}))
		if cps := must[[]hub.Checkpoint](t, "ListCheckpoints")(s.Work.ListCheckpoints(ctx, alice, th.ID)); len(cps) != 0 {
			t.Fatalf("checkpoints of a new thread: %+v", cps)
		}
		_, err = s.Work.ListCheckpoints(ctx, bob, th.ID)
		wantCode(t, "another client's checkpoints", err, hub.CodeNotFound)
		_, err = s.Work.MergeThread(ctx, alice, th.ID)
		wantCode(t, "merging a thread without a worktree", err, hub.CodeInvalidArgument)
		wantGone(t, s, th.ID, s.Work.DeleteThreadWith(ctx, alice, th.ID, hub.DeleteOptions{}))
	})
}

func TestUsage(t *testing.T) {
	each(t, func(t *testing.T, s hub.Services) {
		ctx := context.Background()
		if s.Usage == nil {
			t.Fatal("the engine's usage is missing")
		}
		rep := must[hub.UsageReport](t, "Usage")(s.Usage.Usage(ctx, alice, hub.UsageQuery{By: hub.UsageByAgent}))
		if len(rep.Buckets) != 0 {
			t.Fatalf("usage of a new hub: %+v", rep)
		}
		_, err := s.Usage.Usage(ctx, alice, hub.UsageQuery{By: "weekday"})
		wantCode(t, "an unknown grouping", err, hub.CodeInvalidArgument)
		_, err = s.Usage.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "yearly"})
		wantCode(t, "an unknown budget", err, hub.CodeInvalidArgument)
	})
}

func TestSettingsRead(t *testing.T) {
	each(t, func(t *testing.T, s hub.Services) {
		if s.Settings == nil {
			t.Fatal("no settings")
		}
		got := must[hub.Settings](t, "Settings")(s.Settings.Settings(context.Background()))
		if got.ConfigFile != wantSettings.ConfigFile || got.UI.Theme != wantSettings.UI.Theme {
			t.Fatalf("settings: %+v", got)
		}
	})
}

// A capability the hub lacks (a nil field) is NOT_FOUND with its
// message, whoever asks: read here as the adapters answer it.
func TestMissingCapability(t *testing.T) {
	each(t, func(t *testing.T, s hub.Services) {
		ctx := context.Background()
		install := hub.ErrNoInstaller
		if s.Installer != nil {
			install = asHubError(s.Installer.InstallAgent(ctx, "fake", ""))
		}
		auth := hub.ErrNoAgentAuth
		if s.AgentAuth != nil {
			_, err := s.AgentAuth.SignIn(ctx, "fake", "login")
			auth = asHubError(err)
		}
		for _, c := range []struct {
			got, want *hub.Error
		}{{install, hub.ErrNoInstaller}, {auth, hub.ErrNoAgentAuth}} {
			if c.got == nil || c.got.Code != hub.CodeNotFound || c.got.Message != c.want.Message {
				t.Errorf("got %v, want %v", c.got, c.want)
			}
		}
	})
}

func asHubError(err error) *hub.Error {
	var e *hub.Error
	if !errors.As(err, &e) {
		return nil
	}
	return e
}
