//go:build linux

package tray

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
	"github.com/switchboard-hub/switchboard/tray/icon"
)

// The tray end to end, as a desktop panel sees it: switchboard-tray (built
// with -tags desktop) on a private D-Bus session bus and an Xvfb display,
// registered with status-notifier-watcher (Debian package
// haskell-status-notifier-item-utils). The test reads the status item and
// its com.canonical.dbusmenu layout over D-Bus, clicks Approve through
// com.canonical.dbusmenu.Event, sees the permission approved in the real
// hub (by "client:switchboard-tray": a tray started by hand, without the
// app's secret, is a client like any), sees a request escalated (the
// escalated icon and "1!"), clicks "Always allow in this thread" and sees
// the next identical request decided by that rule, then kills and
// restarts the hub while the tray runs.
//
// Without Xvfb, dbus-daemon, status-notifier-watcher or the appindicator
// headers the test is skipped, unless SWITCHBOARD_TRAY_E2E=require (CI),
// which makes a missing tool a failure.
func TestDBusTray(t *testing.T) {
	needTools(t)
	bin := buildTray(t)
	tmp := t.TempDir()
	env := desktopEnv(t, tmp)

	h := newRealHub(t)
	h.start()
	tray := startTray(t, env, bin, "--data-dir", h.dataDir)

	conn, err := dbus.Connect(busAddress(env))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	sni := findStatusItem(t, conn)

	waitTray(t, tray, "the idle menu", func() bool {
		return sni.label(t, 0) == "No agents working" && sni.iconIs(t, icon.Idle)
	})
	// The first GTK program on this fresh display, yet no OpenGL driver
	// (noGL): Mesa and LLVM would be ~20 MiB of the tray's memory.
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", tray.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{"_dri.so", "libGLX_mesa", "libLLVM"} {
		if bytes.Contains(maps, []byte(lib)) {
			t.Errorf("the tray maps %s: GTK loaded the OpenGL driver", lib)
		}
	}
	if !bytes.Contains(maps, []byte("libgtk-3")) {
		t.Errorf("the tray does not map libgtk-3: the check above proves nothing")
	}
	// One malloc arena (one_arena in gtkpanel_linux.c): glibc maps each
	// further one as a 64 MiB-aligned heap among the libraries, its used
	// part read-write and the rest reserved.
	if n := threadArenas(string(maps)); n > 0 {
		t.Errorf("the tray has %d malloc arenas besides the main one", n)
	}

	th := h.createThread("Clean up")
	h.askPermission(th.ID)
	var approve int32
	waitTray(t, tray, "the permission's submenu", func() bool {
		root := sni.layout(t)
		p := root.find("Fake: make clean")
		if p == nil || root.items[0].label != "1 agent working · 1 approval waiting" ||
			sni.prop(t, "XAyatanaLabel") != "1" || !sni.iconIs(t, icon.NeedsYou) {
			return false
		}
		// What runs first (the hub's description), then the choices.
		if got := p.visibleLabels(); len(got) != 9 || got[0] != "Runs: make clean" || !strings.HasPrefix(got[1], "In: ") || got[2] != "The agent says: “Run make clean”" ||
			strings.Join(got[3:], ",") != "Approve,Deny,Always allow,Always allow in this thread,Always deny in this thread,Open thread" {
			t.Fatalf("submenu %q", got)
		}
		if root.find("Fake: Clean up") == nil || root.find("Fake: Clean up").visibleLabels()[0] != "Cancel" {
			t.Fatalf("no running turn with Cancel in %s", root)
		}
		approve = p.find("Approve").id
		return true
	})
	time.Sleep(reassignGrace + 200*time.Millisecond) // clicks on a fresh entry are ignored
	if err := sni.menu().Call("com.canonical.dbusmenu.Event", 0, approve, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err; err != nil {
		t.Fatalf("dbusmenu Event: %v", err)
	}
	waitTray(t, tray, "the permission approved by the tray", func() bool {
		ps := h.permissions()
		return len(ps) == 1 && ps[0].Status == "approved" &&
			ps[0].DecidedBy == "client:switchboard-tray" && ps[0].OptionID == "allow-once"
	})
	waitTray(t, tray, "idle after the turn", func() bool { return sni.label(t, 0) == "No agents working" })

	// Escalation (permissions.escalateAfter, set live through the
	// settings): the escalated icon, "1!" beside it, "⚠" before the entry;
	// then "Always allow in this thread" from the submenu decides it with
	// remember, and the same request again is decided by that rule
	// without showing in the tray.
	esc := "1s"
	if _, err := h.script.UpdateSettings(context.Background(), hub.SettingsPatch{Permissions: &hub.PermissionSettingsPatch{EscalateAfter: &esc}}); err != nil {
		t.Fatal(err)
	}
	h.askPermission(th.ID)
	var always int32
	waitTray(t, tray, "the escalated state", func() bool {
		root := sni.layout(t)
		p := root.find("⚠ Fake: make clean")
		if p == nil || sni.prop(t, "XAyatanaLabel") != "1!" || !sni.iconIs(t, icon.Escalated) ||
			!strings.HasSuffix(root.items[0].label, "1 waiting too long: needs you") {
			return false
		}
		always = p.find("Always allow in this thread").id
		return true
	})
	time.Sleep(reassignGrace + 200*time.Millisecond)
	if err := sni.menu().Call("com.canonical.dbusmenu.Event", 0, always, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err; err != nil {
		t.Fatalf("dbusmenu Event: %v", err)
	}
	var rule hub.RememberedRule
	waitTray(t, tray, "the permission approved and remembered by the tray", func() bool {
		ps := h.permissions()
		rules, err := client.New(h.dataDir, client.Options{ClientID: "script", All: true}).Rules(context.Background())
		if err != nil || len(rules) != 1 || len(ps) != 2 {
			return false
		}
		rule = rules[0]
		return ps[0].Status == "approved" && ps[1].Status == "approved" && rule.CreatedBy == "client:switchboard-tray" && rule.ThreadID == th.ID
	})
	waitTray(t, tray, "idle after the escalated one", func() bool {
		return sni.label(t, 0) == "No agents working" && sni.iconIs(t, icon.Idle) && sni.prop(t, "XAyatanaLabel") == ""
	})
	h.askPermission(th.ID)
	waitTray(t, tray, "the same request decided by the rule", func() bool {
		n := 0
		for _, p := range h.permissions() {
			if p.DecidedBy == "remembered:"+rule.ID && p.Status == "approved" {
				n++
			}
		}
		return n == 1
	})
	waitTray(t, tray, "idle after the remembered request", func() bool {
		return sni.label(t, 0) == "No agents working" && sni.prop(t, "XAyatanaLabel") == ""
	})

	// The hub dies (hub.json stays behind): trouble, and the tray lives on.
	h.kill()
	waitTray(t, tray, "hub unreachable", func() bool {
		return strings.HasPrefix(sni.label(t, 0), "Hub unreachable") && sni.iconIs(t, icon.Trouble)
	})
	h.start()
	waitTray(t, tray, "reconnected", func() bool {
		return sni.label(t, 0) == "No agents working" && sni.iconIs(t, icon.Idle)
	})

	// SIGTERM ends the tray cleanly.
	tray.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-tray.done:
		if code := tray.cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("tray exited %d after SIGTERM\n%s", code, tray.log())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("tray still running 10 s after SIGTERM\n%s", tray.log())
	}
}

// A tray started at login before Switchboard, through the real panel
// protocol: it says "Switchboard is not running", and its "Start
// Switchboard" launches the switchboard beside it on the tray's data dir.
func TestDBusTrayNotRunning(t *testing.T) {
	needTools(t)
	bin := buildTray(t)
	tmp := t.TempDir()
	env := desktopEnv(t, tmp)
	// The switchboard beside the tray (as in /usr/bin) records how it was
	// started.
	started := filepath.Join(tmp, "started")
	app := filepath.Join(filepath.Dir(bin), "switchboard")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + started + ".tmp && mv " + started + ".tmp " + started + "\n"
	if err := os.WriteFile(app, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(tmp, "no-hub")
	tray := startTray(t, env, bin, "--data-dir", dataDir)

	conn, err := dbus.Connect(busAddress(env))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	sni := findStatusItem(t, conn)

	var start int32
	waitTray(t, tray, "the not-running menu", func() bool {
		root := sni.layout(t)
		e := root.find("Start Switchboard")
		if sni.label(t, 0) != "Switchboard is not running" || e == nil || root.find("Open Switchboard") != nil {
			return false
		}
		start = e.id
		return true
	})
	if err := sni.menu().Call("com.canonical.dbusmenu.Event", 0, start, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err; err != nil {
		t.Fatalf("dbusmenu Event: %v", err)
	}
	waitTray(t, tray, "switchboard started by Start", func() bool {
		b, err := os.ReadFile(started)
		return err == nil && string(b) == "--data-dir\n"+dataDir+"\n"
	})
}

// What the tray's GTK leaves out while a StatusNotifierWatcher draws its
// menu (whilePanelDraws), and gets back once the watcher is gone and
// libayatana-appindicator falls back to an XEmbed icon whose menu GTK
// draws: the theme (empty, then the user's) and the AT-SPI bridge (off,
// then on). GTK parsing its default theme (Adwaita) grows the tray's
// malloc heap by well over a MiB; had it parsed it at start (no empty
// theme), or not again (no restore), the heap would barely move. The
// bridge, once on, asks the session bus for the accessibility bus
// (org.a11y.Bus, started on demand), which nothing asked for before.
func TestDBusTrayPanelGone(t *testing.T) {
	needTools(t)
	if _, err := os.Stat("/usr/share/dbus-1/services/org.a11y.Bus.service"); err != nil {
		msg := "missing at-spi2-core (the accessibility bus)"
		if os.Getenv("SWITCHBOARD_TRAY_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := buildTray(t)
	tmp := t.TempDir()
	env := desktopSession(t, tmp)
	conn, err := dbus.Connect(busAddress(env))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	owned := func(name string) func() bool {
		return func() bool {
			var owned bool
			if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil {
				t.Fatal(err)
			}
			return owned
		}
	}
	a11yBus, watching := owned("org.a11y.Bus"), owned("org.kde.StatusNotifierWatcher")
	watcher := startProc(t, "status-notifier-watcher", env, "status-notifier-watcher")
	waitTray(t, watcher, "the watcher on the bus", watching)
	trayEnv := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "NO_AT_BRIDGE=") })
	tray := startTray(t, trayEnv, bin, "--data-dir", filepath.Join(tmp, "no-hub"))
	sni := findStatusItem(t, conn)
	waitTray(t, tray, "the not-running menu", func() bool { return sni.label(t, 0) == "Switchboard is not running" })
	if !strings.Contains(tray.log(), "GTK has no theme or accessibility bridge") || !strings.Contains(tray.log(), "emptyTheme=true noBridge=true") {
		t.Fatalf("the tray left nothing out:\n%s", tray.log())
	}
	if strings.Contains(tray.log(), "no StatusNotifierWatcher") {
		t.Fatalf("the tray gave up on the watcher while it runs:\n%s", tray.log())
	}
	if a11yBus() {
		t.Fatal("the accessibility bus runs: the tray started its AT-SPI bridge with a watcher")
	}
	before := heapKiB(t, tray.cmd.Process.Pid)

	syscall.Kill(-watcher.cmd.Process.Pid, syscall.SIGKILL)
	<-watcher.done
	waitTray(t, tray, "the user's theme and the bridge back", func() bool {
		return strings.Contains(tray.log(), `no StatusNotifierWatcher: GTK draws the XEmbed tray icon's menu" userTheme=true accessibilityBridge=true`)
	})
	waitTray(t, tray, "the accessibility bus asked for", a11yBus)
	var after int
	waitTray(t, tray, "GTK's theme parsed", func() bool {
		after = heapKiB(t, tray.cmd.Process.Pid)
		return after-before >= 1024
	})
	t.Logf("malloc heap %d KiB with the empty theme, %d KiB with the user's", before, after)

	// A panel again (one that starts after the tray, at login): the empty
	// theme is back.
	startProc(t, "status-notifier-watcher", env, "status-notifier-watcher")
	waitTray(t, tray, "the empty theme again", func() bool {
		return strings.Contains(tray.log(), "GTK's theme is empty again")
	})
}

// threadArenas counts glibc's per-thread malloc arenas in a
// /proc/PID/maps: an anonymous read-write mapping at a 64 MiB boundary in
// the mmap area (above the Go heap's addresses) followed by an anonymous
// reserved one that ends 64 MiB after it.
func threadArenas(maps string) int {
	type m struct {
		start, end uint64
		perms      string
		anon       bool
	}
	var ms []m
	for _, line := range strings.Split(maps, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		var start, end uint64
		if _, err := fmt.Sscanf(f[0], "%x-%x", &start, &end); err != nil {
			continue
		}
		ms = append(ms, m{start, end, f[1], len(f) == 5})
	}
	const heapMax = 64 << 20
	n := 0
	for i := 0; i+1 < len(ms); i++ {
		a, b := ms[i], ms[i+1]
		if a.anon && a.perms == "rw-p" && a.start%heapMax == 0 && a.start >= 0x7f0000000000 &&
			b.anon && b.perms == "---p" && b.start == a.end && b.end == a.start+heapMax {
			n++
		}
	}
	return n
}

// heapKiB is the resident size of pid's malloc heap ([heap] in smaps).
func heapKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") {
			in = strings.HasSuffix(line, "[heap]")
		} else if in && len(f) == 3 && f[0] == "Rss:" {
			var kib int
			fmt.Sscan(f[1], &kib)
			return kib
		}
	}
	t.Fatalf("no [heap] in /proc/%d/smaps", pid)
	return 0
}

func needTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Xvfb, D-Bus, the hub and the tray")
	}
	var missing []string
	for _, tool := range []string{"Xvfb", "dbus-daemon", "status-notifier-watcher", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 && exec.Command("pkg-config", "--exists", "ayatana-appindicator3-0.1").Run() != nil {
		missing = append(missing, "libayatana-appindicator3-dev")
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("missing %s (apt-get install xvfb dbus haskell-status-notifier-item-utils libayatana-appindicator3-dev)", strings.Join(missing, ", "))
		if os.Getenv("SWITCHBOARD_TRAY_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// buildTray builds switchboard-tray with the desktop tag.
func buildTray(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "switchboard-tray")
	cmd := exec.Command("go", "build", "-tags", "desktop", "-o", bin, "./cmd/switchboard-tray")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags desktop: %v\n%s", err, out)
	}
	return bin
}

// proc is a background process of the test, killed at cleanup.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func startProc(t *testing.T, name string, env []string, argv ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p, p
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("--- %s output:\n%s", name, p.log())
		}
	})
	return p
}

// startTray starts the tray binary bin with args on env. At the end it
// says so in the test's log if the tray registered its status item itself
// (itemcheck_linux.go): libayatana-appindicator lost its bus race, which
// load makes likelier.
func startTray(t *testing.T, env []string, bin string, args ...string) *proc {
	t.Helper()
	tray := startProc(t, "tray", env, append([]string{bin}, args...)...)
	t.Cleanup(func() {
		if strings.Contains(tray.log(), "registered it again") {
			t.Log("the tray registered its status item itself")
		}
	})
	return tray
}

// desktopEnv starts a private session bus, an Xvfb display and
// status-notifier-watcher, and returns the environment for programs on
// them (HOME, XDG and TMPDIR in tmp, no accessibility bus).
func desktopEnv(t *testing.T, tmp string) []string {
	t.Helper()
	env := desktopSession(t, tmp)
	startProc(t, "status-notifier-watcher", env, "status-notifier-watcher")
	return env
}

// desktopSession is desktopEnv without status-notifier-watcher: a desktop
// whose panel has no tray area yet.
func desktopSession(t *testing.T, tmp string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "HOME", "TMPDIR", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			continue
		}
		if !strings.HasPrefix(k, "SWITCHBOARD_") {
			env = append(env, kv)
		}
	}
	for _, d := range []string{"home", "run", "tmp"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env = append(env, "HOME="+filepath.Join(tmp, "home"), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"),
		"TMPDIR="+filepath.Join(tmp, "tmp"), "NO_AT_BRIDGE=1", "GDK_BACKEND=x11")

	bus := startProc(t, "dbus-daemon", env, "dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	addr := firstLine(t, bus, "dbus-daemon address")
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)

	// Xvfb writes its display number to -displayfd when it is ready.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := &proc{cmd: exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp"), done: make(chan struct{})}
	x.cmd.Env = env
	x.cmd.ExtraFiles = []*os.File{w}
	x.cmd.Stdout, x.cmd.Stderr = x, x
	x.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := x.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go func() { x.cmd.Wait(); close(x.done) }()
	t.Cleanup(func() { x.cmd.Process.Kill(); <-x.done })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		line <- strings.TrimSpace(s)
	}()
	select {
	case d := <-line:
		if d == "" {
			t.Fatalf("Xvfb gave no display\n%s", x.log())
		}
		env = append(env, "DISPLAY=:"+d)
	case <-time.After(20 * time.Second):
		t.Fatalf("Xvfb not ready in 20 s\n%s", x.log())
	}
	return env
}

// firstLine waits for p's first line of output.
func firstLine(t *testing.T, p *proc, what string) string {
	t.Helper()
	line := ""
	if !testkit.Until(10*time.Second, func() bool {
		s, _, ok := strings.Cut(p.log(), "\n")
		line = strings.TrimSpace(s)
		return ok
	}) {
		t.Fatalf("no %s\n%s", what, p.log())
	}
	return line
}

func busAddress(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "DBUS_SESSION_BUS_ADDRESS="); ok {
			return v
		}
	}
	return ""
}

// waitTray waits (up to 20 s) for cond while the tray runs.
func waitTray(t *testing.T, tray *proc, what string, cond func() bool) {
	t.Helper()
	exited := false
	ok := testkit.Until(20*time.Second, func() bool {
		select {
		case <-tray.done:
			exited = true
			return true
		default:
		}
		return cond()
	})
	if exited {
		t.Fatalf("the tray exited while waiting for %s\n%s", what, tray.log())
	}
	if !ok {
		t.Fatalf("no %s within 20 s\n%s", what, tray.log())
	}
}

// statusItem is the tray's org.kde.StatusNotifierItem on the bus.
type statusItem struct {
	conn     *dbus.Conn
	service  string
	path     dbus.ObjectPath
	menuPath dbus.ObjectPath
}

// findStatusItem waits for status-notifier-watcher to list an item.
func findStatusItem(t *testing.T, conn *dbus.Conn) *statusItem {
	t.Helper()
	watcher := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher")
	var item *statusItem
	var v dbus.Variant
	var err error
	if !testkit.Until(20*time.Second, func() bool {
		v, err = watcher.GetProperty("org.kde.StatusNotifierWatcher.RegisteredStatusNotifierItems")
		if items, ok := v.Value().([]string); err == nil && ok && len(items) > 0 {
			service, path, found := strings.Cut(items[0], "/")
			candidates := []dbus.ObjectPath{"/org/ayatana/NotificationItem/systray", "/StatusNotifierItem"}
			if found {
				candidates = []dbus.ObjectPath{dbus.ObjectPath("/" + path)}
			}
			for _, p := range candidates {
				m, err := conn.Object(service, p).GetProperty("org.kde.StatusNotifierItem.Menu")
				if err == nil {
					item = &statusItem{conn: conn, service: service, path: p, menuPath: m.Value().(dbus.ObjectPath)}
					return true
				}
			}
		}
		return false
	}) {
		t.Fatalf("no status notifier item registered within 20 s (%v, %v)", v, err)
	}
	return item
}

func (s *statusItem) menu() dbus.BusObject { return s.conn.Object(s.service, s.menuPath) }

// prop reads a string property of the item ("" if it cannot).
func (s *statusItem) prop(t *testing.T, name string) string {
	v, err := s.conn.Object(s.service, s.path).GetProperty("org.kde.StatusNotifierItem." + name)
	if err != nil {
		t.Logf("%s: %v", name, err)
		return ""
	}
	str, _ := v.Value().(string)
	return str
}

// iconIs reports whether the item's icon is the tray's icon for st: the
// appindicator writes the PNG to a file and names it in IconName.
func (s *statusItem) iconIs(t *testing.T, st icon.State) bool {
	b, err := os.ReadFile(s.prop(t, "IconName"))
	return err == nil && bytes.Equal(b, icon.TrayStatePNG(st))
}

// label is the label of the top-level entry i.
func (s *statusItem) label(t *testing.T, i int) string {
	root := s.layout(t)
	if i >= len(root.items) {
		return ""
	}
	return root.items[i].label
}

// menuEntry is one dbusmenu entry.
type menuEntry struct {
	id      int32
	label   string
	visible bool
	items   []menuEntry // visible children only
}

func (e menuEntry) String() string {
	var b strings.Builder
	var walk func(e menuEntry, depth int)
	walk = func(e menuEntry, depth int) {
		fmt.Fprintf(&b, "%s%q\n", strings.Repeat("  ", depth), e.label)
		for _, c := range e.items {
			walk(c, depth+1)
		}
	}
	walk(e, 0)
	return b.String()
}

// find is the visible entry labelled label, anywhere below e.
func (e *menuEntry) find(label string) *menuEntry {
	for i := range e.items {
		if e.items[i].label == label {
			return &e.items[i]
		}
		if f := e.items[i].find(label); f != nil {
			return f
		}
	}
	return nil
}

func (e *menuEntry) visibleLabels() []string {
	var out []string
	for _, c := range e.items {
		out = append(out, c.label)
	}
	return out
}

// layout reads the whole menu (GetLayout 0, -1), keeping the visible
// entries with a label (separators have none).
func (s *statusItem) layout(t *testing.T) menuEntry {
	t.Helper()
	var revision uint32
	var raw []any
	if err := s.menu().Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&revision, &raw); err != nil {
		t.Logf("GetLayout: %v", err)
		return menuEntry{}
	}
	return parseEntry(raw)
}

// parseEntry decodes a (ia{sv}av) layout node.
func parseEntry(node []any) menuEntry {
	var e menuEntry
	if len(node) != 3 {
		return e
	}
	e.id, _ = node[0].(int32)
	props, _ := node[1].(map[string]dbus.Variant)
	e.visible = true
	if v, ok := props["visible"]; ok {
		e.visible, _ = v.Value().(bool)
	}
	if v, ok := props["label"]; ok {
		e.label, _ = v.Value().(string)
		e.label = strings.ReplaceAll(e.label, "__", "_") // GTK mnemonics
	}
	kids, _ := node[2].([]dbus.Variant)
	for _, k := range kids {
		child, _ := k.Value().([]any)
		c := parseEntry(child)
		if c.visible && c.label != "" {
			e.items = append(e.items, c)
		}
	}
	return e
}
