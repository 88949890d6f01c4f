//go:build linux

package app

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/app/datadir"
	"github.com/switchboard-hub/switchboard/app/notify"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The desktop end-to-end test: the built window (build/bin/switchboard, or
// $SWITCHBOARD_DESKTOP_BIN) on a private session bus (dbus-run-session) and
// an X display (xvfb-run), with this test as the desktop's notification
// server (org.freedesktop.Notifications). .ci/desktop-smoke runs it with
// SWITCHBOARD_NOTIFY_E2E=require; without that variable it is skipped, so
// `go test ./...` needs neither D-Bus nor a display.
//
// It checks the Notify call of a pending permission (title, body, the
// Approve/Deny actions), that Approve from another connection on the bus
// changes nothing, that the server's Approve approves it in the hub as
// decidedBy "notification", that an escalated request (escalateAfter set
// live) is notified again, critical, replacing the first, and its "Always
// allow here" approves it and adds a thread rule created by
// "notification", that an agent's question is notified (as text, no
// actions) and withdrawn once answered, that nothing is notified about
// the thread the focused window shows (another thread's request still
// is), that a second launch on the same data dir
// shows the first window and exits 0, and that the tray's Quit (POST
// /v1/shutdown) quits cleanly and remembers the window's geometry.

const notifyIface = "org.freedesktop.Notifications"

// notifyCall is one Notify call the fake server received.
type notifyCall struct {
	ID       uint32
	Replaces uint32 // replaces_id: the notification it replaces, 0 for none
	App      string
	Summary  string
	Body     string
	Actions  []string
	Hints    map[string]dbus.Variant
}

// fakeNotifd is a fake org.freedesktop.Notifications server.
type fakeNotifd struct {
	conn   *dbus.Conn
	mu     sync.Mutex
	next   uint32
	calls  []notifyCall
	closed []uint32
}

func (s *fakeNotifd) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.calls = append(s.calls, notifyCall{ID: s.next, Replaces: replaces, App: app, Summary: summary, Body: body, Actions: actions, Hints: hints})
	return s.next, nil
}

func (s *fakeNotifd) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = append(s.closed, id)
	return nil
}

func (s *fakeNotifd) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"actions", "body"}, nil
}

func (s *fakeNotifd) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fake-notifd", "switchboard", "1", "1.2", nil
}

// invoke sends ActionInvoked as a user's click on action would.
func (s *fakeNotifd) invoke(t *testing.T, id uint32, action string) {
	t.Helper()
	if err := s.conn.Emit("/org/freedesktop/Notifications", notifyIface+".ActionInvoked", id, action); err != nil {
		t.Fatal(err)
	}
}

func (s *fakeNotifd) waitCall(t *testing.T, ok func(notifyCall) bool) notifyCall {
	t.Helper()
	var c notifyCall
	if testkit.Until(30*time.Second, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		i := slices.IndexFunc(s.calls, ok)
		if i >= 0 {
			c = s.calls[i]
		}
		return i >= 0
	}) {
		return c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("no such Notify call within 30 s; got %+v", s.calls)
	return notifyCall{}
}

// urgency is a Notify call's urgency hint, -1 when it has none.
func urgency(c notifyCall) int {
	v, ok := c.Hints["urgency"]
	if !ok {
		return -1
	}
	b, ok := v.Value().(byte)
	if !ok {
		return -2
	}
	return int(b)
}

// clickUntil clicks action on notification id every second until done
// reports true (the app maps the server's id once Notify's reply reaches
// it; a click before is dropped, as no user can click that early), within
// 15 s.
func clickUntil(t *testing.T, notifd *fakeNotifd, id uint32, action string, done func() bool) {
	t.Helper()
	last := time.Time{}
	if !testkit.Until(15*time.Second, func() bool {
		if done() {
			return true
		}
		if time.Since(last) >= time.Second {
			notifd.invoke(t, id, action)
			last = time.Now()
		}
		return false
	}) {
		t.Fatalf("%s on notification %d: nothing happened within 15 s", action, id)
	}
}

func startFakeNotifd(t *testing.T) *fakeNotifd {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return serveFakeNotifd(t, conn)
}

// serveFakeNotifd makes conn the bus's notification server.
func serveFakeNotifd(t *testing.T, conn *dbus.Conn) *fakeNotifd {
	t.Helper()
	s := &fakeNotifd{conn: conn}
	if err := conn.Export(s, "/org/freedesktop/Notifications", notifyIface); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(notifyIface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (reply %d): is a notification daemon running on this bus?", notifyIface, err, reply)
	}
	return s
}

// desktopE2EBin is the desktop binary the desktop end-to-end tests run
// (build/bin/switchboard, or $SWITCHBOARD_DESKTOP_BIN). They run only
// when SWITCHBOARD_NOTIFY_E2E is set (.ci/desktop-smoke sets it to
// "require": then whatever they lack is a failure, not a skip).
func desktopE2EBin(t *testing.T) string {
	t.Helper()
	mode := os.Getenv("SWITCHBOARD_NOTIFY_E2E")
	if mode == "" {
		t.Skip("a desktop end-to-end test: set SWITCHBOARD_NOTIFY_E2E=1 under dbus-run-session and xvfb-run (.ci/desktop-smoke)")
	}
	skip := func(why string) {
		t.Helper()
		if mode == "require" {
			t.Fatal(why)
		}
		t.Skip(why + " (SWITCHBOARD_NOTIFY_E2E=require makes this a failure)")
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" || os.Getenv("DISPLAY") == "" {
		skip("needs a session bus and a display")
	}
	bin := os.Getenv("SWITCHBOARD_DESKTOP_BIN")
	if bin == "" {
		wd, _ := os.Getwd()
		bin = filepath.Join(filepath.Dir(wd), "build", "bin", "switchboard")
	}
	if _, err := os.Stat(bin); err != nil {
		skip("no desktop binary (make build): " + err.Error())
	}
	if _, err := exec.LookPath("xdotool"); err != nil {
		skip("no xdotool")
	}
	return bin
}

// desktopEnv is this process's environment for the desktop app, with no
// SWITCHBOARD_ variable but SWITCHBOARD_DEBUG (a debug log, for a failure's
// report) and HOME and the XDG dirs in dir: Wails writes notification
// categories under the user config dir, WebKit its caches.
func desktopEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWITCHBOARD_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	return append(env, "SWITCHBOARD_DEBUG=1", "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "xdgdata"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
}

func TestNotificationsE2E(t *testing.T) {
	bin := desktopE2EBin(t)
	notifd := startFakeNotifd(t)

	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	config := benchConfig(t, dir)
	env := desktopEnv(dir)
	launch := func(log io.Writer) *exec.Cmd {
		cmd := exec.Command(bin, "--data-dir", dataDir, "--config", config, "--listen", "127.0.0.1:0")
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	var log testkit.Buffer
	app := launch(&log)
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		app.Process.Kill()
		if t.Failed() {
			t.Logf("app log:\n%s", log.String())
		}
	})

	// A client of the API, found as the tray and editors find the hub.
	c := client.New(dataDir, client.Options{ClientID: "bench"})
	ctx := context.Background()
	testkit.Eventually(t, 30*time.Second, "the app to serve the API", func() bool {
		_, err := c.Connect(ctx)
		return err == nil
	})

	th := newThread(t, c, dir)
	if _, err := c.StartTurn(ctx, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}

	call := notifd.waitCall(t, func(n notifyCall) bool { return strings.HasPrefix(n.Summary, "Fake:") })
	if call.Summary != "Fake: Run a command" || !strings.Contains(call.Body, "Runs: make clean") {
		t.Errorf("Notify summary %q body %q, want the agent and what kind of request it is, what runs in the body", call.Summary, call.Body)
	}
	for _, a := range []string{notify.ActionApprove, "Approve", notify.ActionDeny, "Deny"} {
		if !slices.Contains(call.Actions, a) {
			t.Errorf("Notify actions %q lack %q", call.Actions, a)
		}
	}
	nid, _ := call.Hints["x-notification-id"].Value().(string)
	permID, ok := strings.CutPrefix(nid, "perm:")
	if !ok {
		t.Fatalf("x-notification-id %q, want perm:<id>", nid)
	}

	// A rogue process on the session bus "clicks" Approve: ignored (only
	// the owner of org.freedesktop.Notifications is heard).
	rogue, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer rogue.Close()
	for range 3 {
		if err := rogue.Emit("/org/freedesktop/Notifications", notifyIface+".ActionInvoked", call.ID, notify.ActionApprove); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Never(t, 900*time.Millisecond, "a rogue's Approve decided the permission", func() bool {
		perms, err := c.Permissions(ctx, "")
		return err == nil && len(perms) == 1 && perms[0].Status != hub.PermissionPending
	})
	if perms, err := c.Permissions(ctx, ""); err != nil || len(perms) != 1 || perms[0].Status != hub.PermissionPending {
		t.Fatalf("after a rogue's Approve: %+v %v, want the permission pending", perms, err)
	}

	// The app maps the server's notification id to ours only once Notify's
	// reply reaches it, and drops an action for an id it does not know
	// yet; our fake records the call before replying, so a click sent at
	// once can beat that mapping (a user cannot click a notification
	// before it shows). Click again every second until the hub decides:
	// the decision is single-use, so only one click can count.
	var p hub.Permission
	clickUntil(t, notifd, call.ID, notify.ActionApprove, func() bool {
		perms, err := c.Permissions(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(perms, func(p hub.Permission) bool { return p.ID == permID }); i >= 0 {
			p = perms[i]
		}
		return p.Status != hub.PermissionPending && p.Status != ""
	})
	if p.Status != hub.PermissionApproved || p.DecidedBy != "notification" {
		t.Errorf("permission %+v, want approved, decidedBy notification", p)
	}
	// The agent got the approval: its turn reports the allow option.
	var hist []hub.TurnHistory
	testkit.Eventually(t, 15*time.Second, "the turn to end after the approval", func() bool {
		var err error
		if hist, err = c.History(ctx, th.ID, false); err != nil {
			t.Fatal(err)
		}
		return len(hist) == 1 && hist[0].Ended()
	})
	if !strings.Contains(hist[0].Output, "outcome: selected allow-once") {
		t.Errorf("turn output %q, want the agent to have been allowed", hist[0].Output)
	}

	// Escalation, set live through the settings: the next request is
	// notified a second time, critical, replacing the first; "Always allow
	// here" on it approves it and remembers it for the thread, as
	// notification.
	esc := "2s"
	if _, err := c.UpdateSettings(ctx, hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{EscalateAfter: &esc}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartTurn(ctx, th.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	// The permission's own notification: the first turn's "turn
	// completed" one (shown when the window did not report focus in time)
	// is "Fake: …" too.
	first := notifd.waitCall(t, func(n notifyCall) bool {
		nid, _ := n.Hints["x-notification-id"].Value().(string)
		return n.ID > call.ID && strings.HasPrefix(n.Summary, "Fake:") && strings.HasPrefix(nid, "perm:")
	})
	crit := notifd.waitCall(t, func(n notifyCall) bool { return strings.HasPrefix(n.Summary, "Still waiting — Fake:") })
	if urgency(crit) != 2 || crit.Replaces != first.ID || !slices.Contains(crit.Actions, notify.ActionRemember) {
		t.Errorf("escalated Notify %+v (urgency %d), want critical, replacing %d, with Always allow here", crit, urgency(crit), first.ID)
	}
	nid, _ = crit.Hints["x-notification-id"].Value().(string)
	permID = strings.TrimPrefix(nid, "perm:")
	status := func() hub.Permission {
		perms, err := c.Permissions(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range perms {
			if p.ID == permID {
				return p
			}
		}
		return hub.Permission{}
	}
	clickUntil(t, notifd, crit.ID, notify.ActionRemember, func() bool { return status().Status != hub.PermissionPending })
	if p := status(); p.Status != hub.PermissionApproved || p.DecidedBy != "notification" || p.EscalatedAt == nil {
		t.Errorf("after Always allow here: %+v, want approved by notification, escalated before", p)
	}
	rules, err := client.New(dataDir, client.Options{ClientID: "bench", All: true}).Rules(ctx)
	if err != nil || len(rules) != 1 || rules[0].CreatedBy != "notification" || rules[0].ThreadID != th.ID || rules[0].Decision != hub.RuleAllow {
		t.Errorf("rules %+v %v, want one allow rule for the thread created by notification", rules, err)
	}

	// An agent's question (elicitation) is notified with its message as
	// text and no Approve/Deny; answered, its notification is withdrawn.
	qth := newThread(t, c, dir)
	if _, err := c.StartTurn(ctx, qth.ID, hub.TurnInput{Input: `elicit {"mode":"form","message":"Which <b>branch</b>?","requestedSchema":{"type":"object","properties":{"b":{"type":"string"}}}}`}); err != nil {
		t.Fatal(err)
	}
	ask := notifd.waitCall(t, func(n notifyCall) bool { return strings.HasPrefix(n.Summary, "Fake asks") })
	if ask.Summary != "Fake asks you a question" || !strings.Contains(ask.Body, "Which &lt;b&gt;branch&lt;/b&gt;?") ||
		slices.Contains(ask.Actions, notify.ActionApprove) || slices.Contains(ask.Actions, notify.ActionDeny) {
		t.Errorf("question Notify %+v, want the message as text and no Approve/Deny", ask)
	}
	qs, err := c.ElicitationsPage(ctx, hub.ElicitationQuery{Status: hub.ElicitationPending, ThreadID: qth.ID})
	if err != nil || len(qs.Elicitations) != 1 {
		t.Fatalf("pending questions %+v %v", qs, err)
	}
	if _, err := c.AnswerElicitation(ctx, qs.Elicitations[0].ID, hub.ElicitationAnswer{Action: hub.ElicitDecline}); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "the answered question's notification to be withdrawn", func() bool {
		notifd.mu.Lock()
		defer notifd.mu.Unlock()
		return slices.Contains(notifd.closed, ask.ID)
	})

	// A single choice is answered from its notification: a button per
	// choice, its label the choice's title; the agent gets that value.
	cth := newThread(t, c, dir)
	choice := `elicit {"mode":"form","message":"Which branch?","requestedSchema":{"type":"object","properties":{"b":{"type":"string","oneOf":[{"const":"main","title":"Main line"},{"const":"dev","title":"Development"}]}}}}`
	if _, err := c.StartTurn(ctx, cth.ID, hub.TurnInput{Input: choice}); err != nil {
		t.Fatal(err)
	}
	pick := notifd.waitCall(t, func(n notifyCall) bool { return strings.Contains(n.Body, "Which branch?") })
	if !slices.Equal(pick.Actions[len(pick.Actions)-4:], []string{notify.ActionAnswer + "0", "Main line", notify.ActionAnswer + "1", "Development"}) ||
		!strings.Contains(pick.Body, "Answer here or in Switchboard.") {
		t.Errorf("single-choice Notify actions %q body %q, want a button per choice", pick.Actions, pick.Body)
	}
	answered := func() bool {
		h, err := c.History(ctx, cth.ID, false)
		return err == nil && len(h) == 1 && strings.Contains(h[0].Output, `"dev"`)
	}
	clickUntil(t, notifd, pick.ID, notify.ActionAnswer+"1", answered)
	qs, err = c.ElicitationsPage(ctx, hub.ElicitationQuery{ThreadID: cth.ID})
	if err != nil || len(qs.Elicitations) != 1 || qs.Elicitations[0].DecidedBy != "notification" {
		t.Errorf("the question answered from its notification: %+v %v, want decidedBy notification", qs, err)
	}

	// The window's rule, in the real window: shown a thread (`switchboard
	// open` hands it over) and focused (xdotool), nothing is notified
	// about that thread, while another thread's request still is.
	vth, other := newThread(t, c, dir), newThread(t, c, dir)
	opener := exec.Command(bin, "open", "--data-dir", dataDir, vth.ID)
	opener.Env = env
	if out, err := opener.CombinedOutput(); err != nil {
		t.Fatalf("switchboard open: %v\n%s", err, out)
	}
	waitLog := func(what, want string) {
		t.Helper()
		if !log.WaitFor(20*time.Second, want) {
			t.Fatalf("the window never reported %s (%q)", what, want)
		}
	}
	waitLog("the thread it shows", `msg="window: shows" thread=`+vth.ID)
	win := appWindow(t, app.Process.Pid)
	// Focus it, again every half second, until it says it has the focus.
	focused := `msg="window: focus" focused=true`
	if !testkit.Until(20*time.Second, func() bool {
		if out, err := exec.Command("xdotool", "windowfocus", "--sync", win).CombinedOutput(); err != nil {
			t.Fatalf("xdotool windowfocus: %v %s", err, out)
		}
		return log.WaitFor(500*time.Millisecond, focused)
	}) {
		t.Fatal("the window never reported the focus")
	}
	if _, err := c.StartTurn(ctx, vth.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartTurn(ctx, other.ID, hub.TurnInput{Input: "permission"}); err != nil {
		t.Fatal(err)
	}
	var looked, elsewhere string // their permission ids
	testkit.Eventually(t, 20*time.Second, "the two requests to be pending", func() bool {
		perms, err := c.Permissions(ctx, hub.PermissionPending)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range perms {
			switch p.ThreadID {
			case vth.ID:
				looked = p.ID
			case other.ID:
				elsewhere = p.ID
			}
		}
		return looked != "" && elsewhere != ""
	})
	notifd.waitCall(t, func(n notifyCall) bool {
		v, _ := n.Hints["x-notification-id"].Value().(string)
		return v == "perm:"+elsewhere
	})
	// The notifier handles events in order: the first is long handled.
	testkit.Never(t, 500*time.Millisecond, "notified about the thread the focused window shows", func() bool {
		notifd.mu.Lock()
		defer notifd.mu.Unlock()
		return slices.ContainsFunc(notifd.calls, func(n notifyCall) bool {
			v, _ := n.Hints["x-notification-id"].Value().(string)
			return v == "perm:"+looked
		})
	})

	// A second launch on the same data dir shows the first window and
	// exits 0; the first keeps running.
	var second bytes.Buffer
	cmd := launch(&second)
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(second.String(), "already running") {
			t.Errorf("second launch: %v\n%s", err, second.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the second launch is still running after 20 s:\n%s", second.String())
	}
	select {
	case err := <-exited:
		t.Fatalf("the first instance exited: %v", err)
	default:
	}

	// Quit as the tray does (POST /v1/shutdown): the window and the hub end
	// cleanly, and the window's geometry is remembered.
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after /v1/shutdown: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after POST /v1/shutdown")
	}
	if _, ok := loadWindowState(dataDir); !ok {
		t.Errorf("no usable %s after quitting", windowFile)
	}
	if _, err := os.Stat(filepath.Join(dataDir, datadir.DiscoveryFile)); err == nil {
		t.Error("hub.json left behind")
	}
}

// appWindow is the app's visible top-level window (xdotool's id).
func appWindow(t *testing.T, pid int) string {
	t.Helper()
	var id string
	testkit.Eventually(t, 20*time.Second, "a visible Switchboard window of the app", func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "Switchboard").Output()
		if ids := strings.Fields(string(out)); len(ids) > 0 {
			id = ids[0]
		}
		return id != ""
	})
	return id
}
