package config

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Debounce is how long the config file must stay quiet after an event
// before a Watcher reads it: editors write in bursts (truncate, write,
// chmod; or write a temp file, rename it over).
const Debounce = 150 * time.Millisecond

// Watcher holds the last good config of one config file and reloads the
// file when it changes, as docs/ARCHITECTURE.md pins it (viper.WatchConfig
// alone is not safe): it watches the file's folder, not the file (editors
// replace files; a watch on the file dies with it), and, when the file is a
// symlink, the folders along the link (re-read on every check, so
// retargeting the link works). Only events on the file, the hops of its
// symlink chain and the folders along them count: the rest of a busy folder
// (a log, a swap file, the database beside it) neither delays nor triggers
// a check. Events are debounced; the file is then read
// once, skipped when its content hash is unchanged, parsed with a fresh
// viper and validated. A valid config that differs from the last good one
// becomes the last good config and goes to apply; an invalid one is
// reported (log, LastError, onError) and the last good config stays. A
// deleted file keeps the last good config; the file is picked up again when
// recreated. An empty file is taken for a write in progress and ignored (a
// file with only a comment resets to the defaults).
//
// If the config's folder does not exist at Start, live reload is off until
// the next start (Start's error); settings edits (Settings) still go
// through the Watcher and apply.
//
// apply and onError run on the Watcher's goroutine, or on the goroutine of a
// settings update, one call at a time and with the Watcher's edit lock held:
// they may call Config and LastError (which already answer the new state),
// never UpdateSettings of a Settings over the same Watcher (a deadlock).
type Watcher struct {
	path     string // absolute config path, as given (maybe a symlink)
	log      *slog.Logger
	debounce time.Duration
	apply    func(from, to Config)
	onError  func(error) // nil: none; called with nil when the file is valid again

	w    *fsnotify.Watcher
	dirs map[string]bool // watched folders; owned by run
	// names are the paths whose events concern the config: the file, each
	// hop of its symlink chain and where it leads (set by watchLinks;
	// owned by run, like dirs).
	names map[string]bool
	// checks counts finished checks of the file (Checks).
	checks atomic.Int64
	// checkMu is held by check, from reading the file to the end of apply,
	// and by edit, from writing the file to the end of apply: an edit and
	// a check never interleave, so the hub never ends up running an older
	// file than the one on disk.
	checkMu sync.Mutex
	stop    chan struct{}
	done    chan struct{}

	mu      sync.Mutex // guards the fields below
	cur     Config     // the last good config
	hash    [sha256.Size]byte
	read    bool // hash is set
	lastErr error
	gone    bool // the file was missing at the last check
	closed  bool
}

// NewWatcher returns a Watcher of the config file at path (absolute; it may
// be a symlink) whose last good config is cur, what the hub started with
// (from Load). apply is the one commit of a new valid config, from the last
// good one to the new; onError, which may be nil, is told of each refused
// file and called with nil when the file is valid again. Nothing is watched
// until Start.
func NewWatcher(path string, cur Config, log *slog.Logger, apply func(from, to Config), onError func(error)) *Watcher {
	return &Watcher{
		path: path, cur: cur, log: log, debounce: Debounce,
		apply: apply, onError: onError,
		dirs: make(map[string]bool),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Start begins watching, then checks the file once, so a change made
// between the hub's first read and the watch is not missed (that check may
// call apply before Start returns). An error means live reload is off: the
// last good config stays, settings edits still apply, Close is still
// needed. Call Start at most once.
func (cw *Watcher) Start() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		close(cw.done)
		return fmt.Errorf("config live reload: %w", err)
	}
	cw.w = w
	dir := filepath.Dir(cw.path)
	if err := w.Add(dir); err != nil {
		w.Close()
		close(cw.done)
		return fmt.Errorf("config live reload is off until Switchboard restarts: watching %s: %w", dir, err)
	}
	cw.dirs[dir] = true
	cw.check()
	go cw.run()
	return nil
}

// Close stops the watch and waits for its goroutine, so apply and onError
// are not called from it after Close returns (a settings update still
// applies). Safe to call more than once, and after a failed Start; but
// only after Start (before, it waits forever).
func (cw *Watcher) Close() {
	cw.mu.Lock()
	first := !cw.closed
	cw.closed = true
	cw.mu.Unlock()
	if first {
		close(cw.stop)
	}
	<-cw.done
	if first && cw.w != nil {
		cw.w.Close()
	}
}

// Config returns the last good config: the latest valid file's (set just
// before apply is called with it), else NewWatcher's cur. Safe from any
// goroutine, apply included.
func (cw *Watcher) Config() Config {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.cur
}

// LastError returns why the file as it is now was refused, or nil when the
// last good config is the file's (or the file is missing). It names the
// file, and the line where it can.
func (cw *Watcher) LastError() error {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.lastErr
}

// Checks returns how many checks of the file (each after a quiet Debounce
// following file events) have finished: whoever changed the file can wait
// for it to grow to know the Watcher has seen the change.
func (cw *Watcher) Checks() int64 { return cw.checks.Load() }

func (cw *Watcher) run() {
	defer close(cw.done)
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-cw.stop:
			return
		case ev, ok := <-cw.w.Events:
			if !ok {
				return
			}
			if !cw.concerns(ev.Name) {
				// A neighbour (a log, an editor's swap file, a build
				// output, the database's WAL) must neither delay nor
				// trigger a check; nor is it logged, so a debug log
				// written into this folder does not feed itself.
				continue
			}
			cw.log.Debug("config: file event", "event", ev.String())
			t.Reset(cw.debounce)
		case err, ok := <-cw.w.Errors:
			if !ok {
				return
			}
			// An overflow loses events: check anyway.
			cw.log.Warn("config: watching the config file", "file", cw.path, "err", err)
			t.Reset(cw.debounce)
		case <-t.C:
			cw.check()
		}
	}
}

// check re-resolves the symlinks, reads the file and applies it if it
// changed. It runs on Start's and run's goroutine only.
func (cw *Watcher) check() {
	defer cw.checks.Add(1)
	cw.checkMu.Lock()
	defer cw.checkMu.Unlock()
	cw.watchLinks()
	data, err := os.ReadFile(cw.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			cw.mu.Lock()
			first, hadErr := !cw.gone, cw.lastErr != nil
			cw.gone, cw.read, cw.lastErr = true, false, nil
			cw.mu.Unlock()
			if first {
				cw.log.Info("config file is gone; keeping the last good config until it is back", "file", cw.path)
			}
			if hadErr && cw.onError != nil {
				cw.onError(nil) // the refused file is gone with it
			}
			return
		}
		cw.fail(fmt.Errorf("config %s: %w", cw.path, err))
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		cw.log.Debug("config file is empty; waiting for its content", "file", cw.path)
		return
	}
	sum := sha256.Sum256(data)
	cw.mu.Lock()
	cw.gone = false
	same := cw.read && sum == cw.hash
	cw.hash, cw.read = sum, true
	cw.mu.Unlock()
	if same {
		return
	}
	to, err := parse(cw.path, data)
	if err != nil {
		cw.fail(err)
		return
	}
	cw.mu.Lock()
	from, wasErr := cw.cur, cw.lastErr != nil
	cw.cur, cw.lastErr = to, nil
	cw.mu.Unlock()
	if wasErr {
		cw.log.Info("config file is valid again", "file", cw.path)
		if cw.onError != nil {
			cw.onError(nil)
		}
	}
	if reflect.DeepEqual(from, to) {
		return
	}
	cw.apply(from, to)
}

// edit runs write, which rewrites the config file, with checks held off.
// When write succeeds, data (the file's new content) and to (its config,
// valid) become the last good config as if a check had read them: apply
// runs with them before edit returns, and the check that the write's own
// file events trigger then finds the content unchanged and does nothing.
// An error from write is returned as is and changes nothing here. edit
// works on a watcher that failed to start as well (apply still runs).
func (cw *Watcher) edit(write func() (data []byte, to Config, err error)) error {
	cw.checkMu.Lock()
	defer cw.checkMu.Unlock()
	data, to, err := write()
	if err != nil {
		return err
	}
	cw.mu.Lock()
	from, wasErr := cw.cur, cw.lastErr != nil
	cw.cur, cw.lastErr = to, nil
	cw.hash, cw.read, cw.gone = sha256.Sum256(data), true, false
	cw.mu.Unlock()
	if wasErr && cw.onError != nil {
		cw.onError(nil)
	}
	if !reflect.DeepEqual(from, to) {
		cw.apply(from, to)
	}
	return nil
}

// fail reports an unusable config file; the last good config stays.
func (cw *Watcher) fail(err error) {
	cw.mu.Lock()
	cw.lastErr = err
	cw.mu.Unlock()
	cw.log.Error("config file refused; keeping the last good config", "err", err)
	if cw.onError != nil {
		cw.onError(err)
	}
}

// concerns reports whether an event on name (a path, as fsnotify names it:
// a watched folder joined with a file name) may change what the config
// path reads: an event on the file, on a hop of its symlink chain, or on a
// folder along one of those paths (a symlinked folder retargeted, a
// watched folder removed). Events on any other file of a watched folder
// are not the config's.
func (cw *Watcher) concerns(name string) bool {
	name = filepath.Clean(name)
	for p := range cw.names {
		if p == name || strings.HasPrefix(p, name+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// watchLinks watches the folder of every hop of the config's symlink chain
// besides the config's own folder, and stops watching folders the chain
// left. A folder that does not exist (a dangling link) is skipped: the next
// event on the link retries.
func (cw *Watcher) watchLinks() {
	want := map[string]bool{filepath.Dir(cw.path): true}
	cw.names = map[string]bool{filepath.Clean(cw.path): true}
	for _, p := range linkChain(cw.path) {
		want[filepath.Dir(p)] = true
		cw.names[filepath.Clean(p)] = true
	}
	watched := map[string]bool{}
	for _, d := range cw.w.WatchList() { // a deleted folder's watch is gone
		watched[d] = true
	}
	for d := range want {
		if watched[d] {
			continue
		}
		if err := cw.w.Add(d); err != nil {
			cw.log.Debug("config: cannot watch the symlink target's folder", "dir", d, "err", err)
			continue
		}
		cw.dirs[d] = true
	}
	for d := range cw.dirs {
		if !want[d] {
			_ = cw.w.Remove(d) // fails if the folder is gone: nothing to undo
			delete(cw.dirs, d)
		}
	}
}
