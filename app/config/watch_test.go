package config

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// watchRig is a Watcher on a real file with real fsnotify, recording
// what it applies and reports.
type watchRig struct {
	t    *testing.T
	path string
	cw   *Watcher
	log  *testkit.Buffer

	mu      sync.Mutex
	applied []Config
	errs    []error
}

// newWatchRig writes body to path, loads it as the hub would and starts a
// watcher on it.
func newWatchRig(t *testing.T, path, body string) *watchRig {
	t.Helper()
	if body != "" {
		writeFile(t, path, body)
	}
	cfg, err := Load(path, false)
	if err != nil {
		t.Fatal(err)
	}
	r := &watchRig{t: t, path: path, log: &testkit.Buffer{}}
	log := slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.cw = NewWatcher(path, cfg, log,
		func(_, to Config) { r.mu.Lock(); r.applied = append(r.applied, to); r.mu.Unlock() },
		func(err error) { r.mu.Lock(); r.errs = append(r.errs, err); r.mu.Unlock() })
	if err := r.cw.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.cw.Close()
		if t.Failed() {
			t.Logf("watcher log:\n%s", r.log.String())
		}
	})
	return r
}

func (r *watchRig) applies() []Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.applied)
}

func (r *watchRig) reported() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// waitApplied waits until n configs have been applied and returns the last.
func (r *watchRig) waitApplied(n int) Config {
	r.t.Helper()
	waitFor(r.t, fmt.Sprintf("%d applied configs", n), func() bool { return len(r.applies()) >= n })
	a := r.applies()
	if len(a) != n {
		r.t.Fatalf("applied %d configs, want %d: %+v", len(a), n, a)
	}
	return a[n-1]
}

// mark is the watcher's check count, for settle.
func (r *watchRig) mark() int64 { return r.cw.Checks() }

// settle waits for the watcher to check the file since mark (taken before
// the writes), so a test can assert nothing happened.
func (r *watchRig) settle(n int64) {
	r.t.Helper()
	waitFor(r.t, "a check of the file", func() bool { return r.cw.Checks() > n })
	// Events from the same write may still be queued: nothing more is
	// applied for two more debounces.
	applied := len(r.applies())
	testkit.Never(r.t, 2*r.cw.debounce, "another apply after the check", func() bool { return len(r.applies()) > applied })
}

// waitFor fails t unless cond holds within 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, what, cond)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// atomicSave writes body the way most editors save: a temp file in the same
// folder, renamed over path.
func atomicSave(t *testing.T, path, body string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	writeFile(t, tmp, body)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func timeoutConf(d string) string { return "permissions:\n  timeout: " + d + "\n" }

func TestConfigWatchInPlaceWrite(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The empty file stays long enough to be read: it must not apply (it
	// would be the defaults, a 10m timeout).
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("the truncated file applied: %+v", a)
	}
	if _, err := f.WriteString(timeoutConf("7m")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if c := r.waitApplied(1); c.Permissions.Timeout != 7*time.Minute {
		t.Fatalf("applied timeout %v, want 7m", c.Permissions.Timeout)
	}
	if got := r.cw.Config().Permissions.Timeout; got != 7*time.Minute {
		t.Fatalf("Config() timeout %v", got)
	}
}

func TestConfigWatchAtomicSave(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	atomicSave(t, r.path, timeoutConf("6m")+"allowedOrigins: [http://a.test]\n")
	c := r.waitApplied(1)
	if c.Permissions.Timeout != 6*time.Minute || !slices.Equal(c.AllowedOrigins, []string{"http://a.test"}) {
		t.Fatalf("applied %+v", c)
	}
	atomicSave(t, r.path, timeoutConf("8m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 8*time.Minute {
		t.Fatalf("second save applied %v", c.Permissions.Timeout)
	}
}

func TestConfigWatchDeleteAndRecreate(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	if err := os.Remove(r.path); err != nil {
		t.Fatal(err)
	}
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("deleting the file applied %+v", a)
	}
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute || r.cw.LastError() != nil {
		t.Fatalf("after delete: timeout %v, error %v; want the last good config", got, r.cw.LastError())
	}
	writeFile(t, r.path, timeoutConf("9m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 9*time.Minute {
		t.Fatalf("recreated file applied %v", c.Permissions.Timeout)
	}
	// And the folder is still watched.
	atomicSave(t, r.path, timeoutConf("11m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 11*time.Minute {
		t.Fatalf("edit after recreate applied %v", c.Permissions.Timeout)
	}
}

func TestConfigWatchSymlink(t *testing.T) {
	linkDir, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(dirB, "real.yaml")
	writeFile(t, target, timeoutConf("5m"))
	link := filepath.Join(linkDir, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r := newWatchRig(t, link, "")
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute {
		t.Fatalf("start: %v", got)
	}

	// Edit the target, in its own folder: in place, then atomically.
	writeFile(t, target, timeoutConf("6m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 6*time.Minute {
		t.Fatalf("edited target applied %v", c.Permissions.Timeout)
	}
	atomicSave(t, target, timeoutConf("7m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 7*time.Minute {
		t.Fatalf("atomically saved target applied %v", c.Permissions.Timeout)
	}

	// Retarget the link atomically (ln -sfn: a new link renamed over).
	other := filepath.Join(dirC, "other.yaml")
	writeFile(t, other, timeoutConf("12m"))
	tmp := filepath.Join(linkDir, ".config.yaml.new")
	if err := os.Symlink(other, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	if c := r.waitApplied(3); c.Permissions.Timeout != 12*time.Minute {
		t.Fatalf("retargeted link applied %v", c.Permissions.Timeout)
	}
	// The new target's folder is watched now, the old one no longer counts.
	writeFile(t, other, timeoutConf("13m"))
	if c := r.waitApplied(4); c.Permissions.Timeout != 13*time.Minute {
		t.Fatalf("edited new target applied %v", c.Permissions.Timeout)
	}
	writeFile(t, target, timeoutConf("1m"))
	testkit.Never(t, 3*r.cw.debounce, "editing the old target applied", func() bool { return len(r.applies()) > 4 })
	if a := r.applies(); len(a) != 4 {
		t.Fatalf("editing the old target applied %+v", a[4:])
	}
}

func TestConfigWatchInvalidEdit(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	atomicSave(t, r.path, "permissions:\n  timeout: 6m\nallowedOrigins: [http://a.test\n")
	// LastError is set just before onError is called: wait for both.
	waitFor(t, "the error", func() bool { return r.cw.LastError() != nil && len(r.reported()) > 0 })
	err := r.cw.LastError()
	if msg := err.Error(); !strings.Contains(msg, r.path) || !strings.Contains(msg, "line 3") {
		t.Fatalf("error %q does not name the file and line 3", msg)
	}
	if errs := r.reported(); len(errs) != 1 || errs[0] != err {
		t.Fatalf("onError got %v, want [%v]", errs, err)
	}
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("the invalid file applied %+v", a)
	}
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute {
		t.Fatalf("last good config lost: timeout %v", got)
	}
	if !strings.Contains(r.log.String(), "level=ERROR") {
		t.Fatalf("no error logged:\n%s", r.log.String())
	}

	// Fixing the file applies it and clears the error.
	atomicSave(t, r.path, timeoutConf("6m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 6*time.Minute {
		t.Fatalf("fixed file applied %v", c.Permissions.Timeout)
	}
	if r.cw.LastError() != nil {
		t.Fatalf("error not cleared: %v", r.cw.LastError())
	}
	if errs := r.reported(); len(errs) != 2 || errs[1] != nil {
		t.Fatalf("onError got %v, want the error then nil", errs)
	}
}

func TestConfigWatchUnknownKey(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	atomicSave(t, r.path, "# comment\npermissions:\n  timeout: 6m\n  timout: 7m\n")
	waitFor(t, "the error", func() bool { return r.cw.LastError() != nil })
	msg := r.cw.LastError().Error()
	if !strings.Contains(msg, r.path) || !strings.Contains(msg, "line 4: unknown key permissions.timout") {
		t.Fatalf("error %q does not name the file, line 4 and the key", msg)
	}
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("a file with an unknown key applied %+v", a)
	}
}

func TestConfigWatchUnchangedContent(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	// The same bytes again (a save without changes), then only a comment.
	m := r.mark()
	atomicSave(t, r.path, timeoutConf("5m"))
	r.settle(m)
	m = r.mark()
	writeFile(t, r.path, "# just a comment\n"+timeoutConf("5m"))
	r.settle(m)
	if a := r.applies(); len(a) != 0 {
		t.Fatalf("unchanged config applied %+v", a)
	}
}

func TestConfigWatchDebouncesBursts(t *testing.T) {
	r := newWatchRig(t, filepath.Join(t.TempDir(), "config.yaml"), timeoutConf("5m"))
	m := r.mark()
	for i := 1; i <= 20; i++ {
		writeFile(t, r.path, timeoutConf(fmt.Sprintf("%dm", 20+i)))
		time.Sleep(5 * time.Millisecond)
	}
	if c := r.waitApplied(1); c.Permissions.Timeout != 40*time.Minute {
		t.Fatalf("burst applied %v, want the last write's 40m", c.Permissions.Timeout)
	}
	r.settle(m)
	if a := r.applies(); len(a) != 1 {
		t.Fatalf("burst applied %d times", len(a))
	}
}

func TestConfigWatchMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "config.yaml")
	cfg, err := Load(path, false)
	if err != nil {
		t.Fatal(err)
	}
	cw := NewWatcher(path, cfg, slog.New(slog.DiscardHandler), func(_, _ Config) {}, nil)
	if err := cw.Start(); err == nil || !strings.Contains(err.Error(), "live reload is off") {
		t.Fatalf("start: %v, want live reload off", err)
	}
	cw.Close() // safe after a failed start
}

// A neighbour written more often than the debounce (a log, an editor's
// swap file, the database's WAL in the data dir) must not starve a valid
// edit of the config (issue 14, item 2).
func TestConfigWatchBusyFolder(t *testing.T) {
	dir := t.TempDir()
	r := newWatchRig(t, filepath.Join(dir, "config.yaml"), timeoutConf("5m"))
	stop := make(chan struct{})
	done := make(chan struct{})
	busy := make(chan struct{}) // closed after the neighbours' fourth writes
	go func() {
		defer close(done)
		f, err := os.Create(filepath.Join(dir, "hub.log"))
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
				fmt.Fprintln(f, "a line of log")
				_ = os.WriteFile(filepath.Join(dir, ".config.yaml.swx"), []byte("swap"), 0o600)
				if n == 4 {
					close(busy)
				}
			}
		}
	}()
	defer func() { close(stop); <-done }()
	select { // the neighbours are busy
	case <-busy:
	case <-done:
	}
	writeFile(t, r.path, timeoutConf("6m"))
	if c := r.waitApplied(1); c.Permissions.Timeout != 6*time.Minute {
		t.Fatalf("edit in a busy folder applied %v", c.Permissions.Timeout)
	}
	atomicSave(t, r.path, timeoutConf("7m"))
	if c := r.waitApplied(2); c.Permissions.Timeout != 7*time.Minute {
		t.Fatalf("atomic save in a busy folder applied %v", c.Permissions.Timeout)
	}
	if strings.Contains(r.log.String(), "hub.log") {
		t.Fatalf("the neighbour's events were logged:\n%s", r.log.String())
	}
}

// A config reached through a symlinked folder that is swapped atomically
// (the ..data layout of a Kubernetes ConfigMap): the swap is an event on
// a folder along the chain, not on the file, and still counts.
func TestConfigWatchSymlinkedFolderSwap(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"v1", "v2"} {
		if err := os.Mkdir(filepath.Join(dir, v), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "v1", "config.yaml"), timeoutConf("5m"))
	writeFile(t, filepath.Join(dir, "v2", "config.yaml"), timeoutConf("9m"))
	if err := os.Symlink("v1", filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(filepath.Join("data", "config.yaml"), link); err != nil {
		t.Fatal(err)
	}
	r := newWatchRig(t, link, "")
	if got := r.cw.Config().Permissions.Timeout; got != 5*time.Minute {
		t.Fatalf("start: %v", got)
	}
	tmp := filepath.Join(dir, ".data_tmp")
	if err := os.Symlink("v2", tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	if c := r.waitApplied(1); c.Permissions.Timeout != 9*time.Minute {
		t.Fatalf("swapped folder applied %v", c.Permissions.Timeout)
	}
}
