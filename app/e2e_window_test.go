//go:build linux

package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// The daily driver's window-only paths (issue 21), in the real window: the
// built app under Xvfb and a private session bus, driven with xdotool as a
// user's keyboard would, and seen through what a user sees — the window's
// title ("<thread> — Switchboard", "<panel> — Switchboard", plain
// "Switchboard" with nothing open), the file the Save dialog wrote, the
// URL handed to the browser. .ci/desktop-smoke runs it
// (SWITCHBOARD_NOTIFY_E2E=require); the same flows in a browser are
// frontend/e2e/daily.mjs and systest/e2e_daily_test.go.
//
// It checks that `switchboard open THREAD` with no app running says so and
// opens nothing; that with the app running it shows the thread in the
// running window (the single-instance hand-over), and with --browser hands
// a one-time login link to the browser; that Ctrl+1…9, Alt+1…9 and
// Alt+↑/↓ switch threads; that Escape closes only the topmost panel and
// never stops a turn, and Ctrl+. does; that the thread's exports, run
// from the command palette (Ctrl+K, words, Enter: Linux has no native menu
// bar, ADR 0034), go through the native Save dialog into the file typed
// there, the same bytes as the HTTP API's export; and that its "Open in
// browser" hands the
// browser (a fake xdg-open on PATH, which records the URL) a link that
// signs in and lands on /#/t/<id>; and that a `switchboard open` the
// moment the window appears, before its page listens, is not lost.
func TestWindowDailyE2E(t *testing.T) {
	bin := desktopE2EBin(t)
	started := time.Now()
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	config := benchConfig(t, dir)
	// The browser: a fake xdg-open first on PATH records what it is asked
	// to open, one line each.
	opened := filepath.Join(dir, "opened.txt")
	fakeBin := filepath.Join(dir, "fakebin")
	if err := os.MkdirAll(fakeBin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + opened + "'\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range desktopEnv(dir) {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + fakeBin + string(os.PathListSeparator) + p
		}
		env = append(env, kv)
	}
	ctx := context.Background()

	// `switchboard open THREAD`, as a user types it.
	open := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"open", "--data-dir", dataDir}, args...)...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			return out.String(), code
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("switchboard open %q still running after 60 s:\n%s", args, out.String())
			return "", 0
		}
	}

	// No app running: it says to start Switchboard, and opens nothing.
	if out, code := open("th_none"); code != 1 || !strings.Contains(out, "no hub is running") || !strings.Contains(out, "start Switchboard first") {
		t.Errorf("open with no app running: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("open with no app running started a browser")
	}

	launch := func() (pid int, exited <-chan error) {
		t.Helper()
		return launchApp(t, bin, dataDir, config, env)
	}
	c := client.New(dataDir, client.Options{ClientID: "bench"})
	waitAPI := func() {
		t.Helper()
		testkit.Eventually(t, 60*time.Second, "the app to serve the API", func() bool {
			_, err := c.Connect(ctx)
			return err == nil
		})
	}
	quit := func(exited <-chan error) {
		t.Helper()
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("exit after /v1/shutdown: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("still running 30 s after POST /v1/shutdown")
		}
	}
	pid, exited := launch()
	waitAPI()
	w := findAppWindow(t, pid)
	w.waitTitle("Switchboard") // nothing open yet

	titles := map[string]string{} // thread id → title
	var ids []string
	for _, name := range []string{"Alpha", "Bravo", "Charlie"} {
		th := newThread(t, c, dir)
		if _, err := c.RenameThread(ctx, th.ID, name); err != nil {
			t.Fatal(err)
		}
		titles[th.ID] = name
		ids = append(ids, th.ID)
	}

	// 1. `switchboard open` hands the thread over to the running window,
	// even while its page may still be loading (app.EventWindowReady).
	if out, code := open(ids[1]); code != 0 || !strings.Contains(out, "showed thread "+ids[1]+" in the window") {
		t.Fatalf("open %s: exit %d\n%s", ids[1], code, out)
	}
	w.waitTitle("Bravo — Switchboard")
	// A link to the thread works as well as its id.
	if out, code := open("http://127.0.0.1:1/#/t/" + ids[2]); code != 0 {
		t.Fatalf("open a link: exit %d\n%s", code, out)
	}
	w.waitTitle("Charlie — Switchboard")
	if _, err := os.Stat(opened); err == nil {
		t.Error("open handed to the window also started a browser")
	}
	// --browser: a one-time link to the browser, which signs in on the thread.
	if out, code := open("--browser", ids[0]); code != 0 {
		t.Fatalf("open --browser: exit %d\n%s", code, out)
	}
	checkSignIn(t, c, waitOpened(t, opened, 1), ids[0])
	w.waitTitle("Charlie — Switchboard") // the window stays as it was

	// 2. The keyboard: Ctrl+1…9 (the window's own), Alt+1…9, Alt+↑/↓
	// (wrapping). The list has one folder, newest thread first: Charlie,
	// Bravo, Alpha.
	for _, step := range []struct{ key, want string }{
		{"alt+3", "Alpha"},
		{"ctrl+2", "Bravo"},
		{"alt+Down", "Alpha"},
		{"alt+Down", "Charlie"}, // wraps
		{"alt+Up", "Alpha"},     // wraps back
		{"alt+Up", "Bravo"},
		{"ctrl+1", "Charlie"},
		{"alt+2", "Bravo"},
	} {
		w.key(step.key)
		w.waitTitle(step.want + " — Switchboard")
	}
	shown := ids[1] // Bravo

	// Escape closes only the topmost panel: the key list over the
	// Approvals panel, then the panel, then nothing more.
	w.key("ctrl+shift+a")
	w.waitTitle("Approvals — Switchboard")
	w.key("question")
	w.waitTitle("Keyboard shortcuts — Switchboard")
	w.key("Escape")
	w.waitTitle("Approvals — Switchboard")
	w.key("Escape")
	w.waitTitle(titles[shown] + " — Switchboard")

	// 3. Ctrl+. stops the running turn; Escape never does.
	turn, err := c.StartTurn(ctx, shown, hub.TurnInput{Input: "hang"})
	if err != nil {
		t.Fatal(err)
	}
	turnState := func() hub.TurnHistory {
		hist, err := c.History(ctx, shown, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hist {
			if h.ID == turn.ID {
				return h
			}
		}
		t.Fatalf("turn %s not in the history", turn.ID)
		return hub.TurnHistory{}
	}
	waitUntil(t, 30*time.Second, "the turn to run", func() bool { return turnState().Status == hub.TurnRunning })
	w.key("Escape")
	testkit.Never(t, 2*time.Second, "Escape ended the turn", func() bool { return turnState().Ended() })
	// Ctrl+. acts once the window has the turn's start (its event may
	// still be on its way on a loaded machine): press it every 3 s until
	// the turn ends; once it has, another press has nothing to stop.
	if !testkit.Until(60*time.Second, func() bool {
		if turnState().Ended() {
			return true
		}
		w.key("ctrl+period")
		return testkit.Until(3*time.Second, func() bool { return turnState().Ended() })
	}) {
		w.shot()
		t.Fatal("the turn still runs 60 s after Ctrl+.")
	}
	if h := turnState(); h.StopReason != "cancelled" {
		t.Errorf("after Ctrl+.: %+v, want stopReason cancelled", h)
	}
	w.waitTitle(titles[shown] + " — Switchboard")

	// 4. Export from the command palette through the native Save dialog,
	// into the file typed there: the same bytes as the HTTP API's export.
	exports := filepath.Join(dir, "exports")
	if err := os.MkdirAll(exports, 0o755); err != nil {
		t.Fatal(err)
	}
	// Cancel in the Save dialog writes nothing.
	w.palette("export as markdown")
	closeDialog(t, dialogNamed(t, "Export"), "Escape")
	if left, _ := os.ReadDir(exports); len(left) != 0 {
		t.Errorf("a cancelled export left %v", left)
	}
	for _, format := range []string{"md", "jsonl"} {
		path := filepath.Join(exports, "picked-"+format+".out")
		w.palette(map[string]string{"md": "export as markdown", "jsonl": "export as json lines"}[format])
		saveAs(t, path)
		waitUntil(t, 30*time.Second, "the export in "+path, func() bool { _, err := os.Stat(path); return err == nil })
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := c.Export(ctx, hub.ExportRequest{ThreadID: shown, Format: format})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, want) {
			t.Errorf("%s export from the window:\n%s\nwant the API's:\n%s", format, got, want)
		}
		switch format {
		case "md":
			if !bytes.Contains(got, []byte(titles[shown])) || !bytes.Contains(got, []byte("hang")) {
				t.Errorf("the Markdown export lacks the title or the prompt:\n%s", got)
			}
		case "jsonl":
			checkJSONL(t, got, shown)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v, want 0600", path, err, fi.Mode())
		}
	}
	if left, _ := filepath.Glob(filepath.Join(exports, ".*")); len(left) != 0 {
		t.Errorf("temporary files left beside the exports: %q", left)
	}

	// 5. "Open in browser" from the palette: the browser gets a one-time
	// link that signs in and lands on the thread.
	w.palette("open in browser")
	checkSignIn(t, c, waitOpened(t, opened, 2), shown)
	w.waitTitle(titles[shown] + " — Switchboard")

	// Quit as the tray does; the window and the hub end cleanly.
	quit(exited)

	// 6. Started again, the app is asked to show a thread the moment its
	// window appears, before its page may listen: the hand-over is kept
	// until the page says window:ready.
	pid, exited = launch()
	waitAPI()
	w = findAppWindow(t, pid)
	if out, code := open(ids[0]); code != 0 || !strings.Contains(out, "in the window") {
		t.Fatalf("open %s as the window appears: exit %d\n%s", ids[0], code, out)
	}
	w.waitTitle("Alpha — Switchboard")
	quit(exited)
	t.Logf("the window's daily paths took %s", time.Since(started).Round(time.Second))
}

// xwindow is the app's top-level window, driven through xdotool.
type xwindow struct {
	t  *testing.T
	id string
}

// xdotool runs xdotool with args and answers its output, trimmed.
func xdotool(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command("xdotool", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// findAppWindow is the visible window of process pid titled exactly
// "Switchboard", within 60 s.
func findAppWindow(t *testing.T, pid int) *xwindow {
	t.Helper()
	var w *xwindow
	testkit.Eventually(t, 60*time.Second, "a window titled Switchboard", func() bool {
		out, _ := xdotool(t, "search", "--onlyvisible", "--pid", strconv.Itoa(pid), "--name", "Switchboard")
		for id := range strings.FieldsSeq(out) {
			// search is a case-insensitive regexp; GTK's leader window is "switchboard".
			if name, _ := xdotool(t, "getwindowname", id); name == "Switchboard" {
				w = &xwindow{t: t, id: id}
				return true
			}
		}
		return false
	})
	return w
}

func (w *xwindow) title() string {
	name, err := xdotool(w.t, "getwindowname", w.id)
	if err != nil {
		w.t.Fatalf("xdotool getwindowname %s: %v", w.id, err)
	}
	return name
}

// waitTitle waits up to 30 s for the window's title to be want.
func (w *xwindow) waitTitle(want string) {
	w.t.Helper()
	got := ""
	if testkit.Until(30*time.Second, func() bool {
		got = w.title()
		return got == want
	}) {
		return
	}
	w.shot()
	w.t.Fatalf("window title %q after 30 s, want %q", got, want)
}

// shot saves a screenshot of the screen to $SWITCHBOARD_WINDOW_SHOT, when
// set (.ci/desktop-smoke sets it), for a failure's post-mortem.
func (w *xwindow) shot() { screenshot(w.t) }

func screenshot(t *testing.T) {
	if p := os.Getenv("SWITCHBOARD_WINDOW_SHOT"); p != "" {
		if err := exec.Command("import", "-window", "root", p).Run(); err == nil {
			t.Logf("screenshot in %s", p)
		}
	}
}

// key focuses the window and presses keys (xdotool's names, "ctrl+1").
func (w *xwindow) key(keys ...string) {
	w.t.Helper()
	if _, err := xdotool(w.t, "windowfocus", "--sync", w.id); err != nil {
		w.t.Fatalf("xdotool windowfocus: %v", err)
	}
	if _, err := xdotool(w.t, append([]string{"key", "--window", w.id, "--delay", "150"}, keys...)...); err != nil {
		w.t.Fatalf("xdotool key %q: %v", keys, err)
	}
}

// palette runs an action of the command palette from the keyboard, as a
// user does: Ctrl+K opens it (the window's title says "Search"), the words
// typed filter its actions, Enter runs the first one left.
func (w *xwindow) palette(words string) {
	w.t.Helper()
	w.key("ctrl+k")
	w.waitTitle("Search — Switchboard")
	if _, err := xdotool(w.t, "type", "--window", w.id, "--delay", "60", words); err != nil {
		w.t.Fatalf("xdotool type %q: %v", words, err)
	}
	w.settled() // the list follows the input on the next frame
	w.key("Return")
}

// launchApp starts the desktop app on dataDir with config and env, and
// waits for nothing; exited gets its exit. The app is killed when the test
// ends, and its log shown if the test failed.
func launchApp(t *testing.T, bin, dataDir, config string, env []string) (pid int, exited <-chan error) {
	t.Helper()
	var log testkit.Buffer
	app := exec.Command(bin, "--data-dir", dataDir, "--config", config, "--listen", "127.0.0.1:0")
	app.Env = env
	app.Stdout, app.Stderr = &log, &log
	app.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Wait() }()
	t.Cleanup(func() {
		app.Process.Kill()
		if t.Failed() {
			t.Logf("app log:\n%s", log.String())
		}
	})
	return app.Process.Pid, done
}

// dialogNamed waits up to 30 s for a visible window titled exactly name
// (the Save dialog: "Export") and answers its id.
func dialogNamed(t *testing.T, name string) string {
	t.Helper()
	dlg := ""
	if testkit.Until(30*time.Second, func() bool {
		out, _ := xdotool(t, "search", "--onlyvisible", "--name", "^"+name+"$")
		for id := range strings.FieldsSeq(out) {
			if got, _ := xdotool(t, "getwindowname", id); got == name {
				dlg = id
				return true
			}
		}
		return false
	}) {
		// GTK maps the dialog, then focuses its name field: nothing an
		// outside client can see (allowlisted in TestNoSleepInTests).
		time.Sleep(500 * time.Millisecond)
		return dlg
	}
	screenshot(t)
	t.Fatalf("no dialog titled %s within 30 s", name)
	return ""
}

// saveAs types path into the name field of the Save dialog (titled
// "Export") and presses Enter.
func saveAs(t *testing.T, path string) {
	t.Helper()
	dlg := dialogNamed(t, "Export")
	for _, args := range [][]string{
		{"windowfocus", "--sync", dlg},
		{"key", "--window", dlg, "--delay", "100", "ctrl+a", "BackSpace"},
		{"type", "--window", dlg, "--delay", "20", path},
	} {
		if _, err := xdotool(t, args...); err != nil {
			t.Fatalf("xdotool %q: %v", args, err)
		}
	}
	// Enter saves, unless the name field's completion takes the first one.
	closeDialog(t, dlg, "Return")
}

// closeDialog presses key in the Save dialog dlg until it is gone, for up
// to 30 s.
func closeDialog(t *testing.T, dlg, key string) {
	t.Helper()
	gone := func() bool {
		out, _ := xdotool(t, "search", "--onlyvisible", "--name", "^Export$")
		return !slices.Contains(strings.Fields(out), dlg)
	}
	if !testkit.Until(30*time.Second, func() bool {
		_, _ = xdotool(t, "windowfocus", "--sync", dlg)
		_, _ = xdotool(t, "key", "--window", dlg, key)
		return testkit.Until(2*time.Second, gone)
	}) {
		screenshot(t)
		t.Fatalf("the dialog is still open 30 s after %s", key)
	}
}

// waitOpened waits up to 30 s for the fake browser to have been asked to
// open n URLs, and answers the n-th.
func waitOpened(t *testing.T, file string, n int) string {
	t.Helper()
	var lines []string
	waitUntil(t, 30*time.Second, "the browser to be started", func() bool {
		b, _ := os.ReadFile(file)
		lines = strings.Fields(string(b))
		return len(lines) >= n
	})
	if len(lines) != n {
		t.Fatalf("the browser was asked to open %q, want %d URLs", lines, n)
	}
	return lines[n-1]
}

// signInSecretRE finds the session secret a sign-in page keeps (as
// app_test's sessionSecretRE, of the external test package).
var signInSecretRE = regexp.MustCompile(`sessionStorage\.setItem\("switchboard\.session", "([A-Za-z0-9_-]+)"\)`)

// checkSignIn: link is a one-time login link of the hub c finds, which
// signs a browser in and lands on /#/t/<threadID>, and then works no more.
func checkSignIn(t *testing.T, c *client.Client, link, threadID string) {
	t.Helper()
	h, err := c.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, h.URL+"/auth?code=") {
		t.Fatalf("the browser got %q, want a login link of %s", link, h.URL)
	}
	get := func(u string, hdr ...string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	status, page := get(link)
	m := signInSecretRE.FindSubmatch(page)
	if status != 200 || m == nil || !bytes.Contains(page, []byte(strconv.Quote("/#/t/"+threadID))) {
		t.Fatalf("following %s: %d\n%s", link, status, page)
	}
	// Signed in: the session's secret reads the thread.
	if status, body := get(h.URL+"/v1/threads/"+threadID+"?scope=all", "Authorization", "Bearer "+string(m[1]), "X-Client-ID", "browser-window-e2e"); status != 200 ||
		!bytes.Contains(body, []byte(threadID)) {
		t.Errorf("GET the thread as the signed-in browser: %d %s", status, body)
	}
	if status, _ := get(link); status != 401 {
		t.Errorf("the link a second time: %d, want 401", status)
	}
}

// checkJSONL: a lossless export of thread id: {schema: 1, thread} first,
// then one JSON object a line.
func checkJSONL(t *testing.T, b []byte, id string) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	var kinds []string
	for n := 0; sc.Scan(); n++ {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("JSON lines export, line %d: %v: %s", n+1, err, sc.Bytes())
		}
		if n == 0 {
			var th struct{ ID string }
			_ = json.Unmarshal(line["thread"], &th)
			if string(line["schema"]) != "1" || th.ID != id {
				t.Fatalf("JSON lines export starts %s, want {schema: 1, thread: %s}", sc.Bytes(), id)
			}
		}
		for k := range line {
			kinds = append(kinds, k)
		}
	}
	if !slices.Contains(kinds, "turn") {
		t.Errorf("JSON lines export has no turn (keys %q):\n%s", kinds, b)
	}
}

// waitUntil waits until ok holds, for up to d (a screenshot if not).
func waitUntil(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	if !testkit.Until(d, ok) {
		screenshot(t)
		t.Fatalf("waited %s for %s", d, what)
	}
}
