package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// A folder's worktreeSetup (issue 31): shell commands run in a new
// worktree before its thread's agent starts, announced on the thread
// (hub.WorktreeSetup) as they go, cancellable. Whatever its end, the
// thread stays usable: the agent starts once the setup ended.

// setupOutputMax is how much of a setup's output the thread keeps (its end).
const setupOutputMax = 64 << 10

// setupEvery is how often a running setup's output is announced at most.
const setupEvery = 500 * time.Millisecond

// setups are the running worktree setups by thread id.
type setups struct {
	mu sync.Mutex
	m  map[string]*setupRun
	// ran are the threads whose setup this process started, running or
	// ended: their stored end is this process's to write, never stale.
	ran map[string]bool
}

// setupRun is one running setup: cancel kills it, done is closed once it
// ended and its end is stored.
type setupRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// worktreeSetupFor is the config's worktreeSetup for a thread in folder
// cwd: the most specific matching rule that sets it.
func (c Config) worktreeSetupFor(cwd string) []string {
	var best *FolderRule
	for i := range c.Folders {
		r := &c.Folders[i]
		if r.WorktreeSetup == nil || !MatchFolder(r.Glob, cwd) {
			continue
		}
		if best == nil || moreSpecific(r.Glob, best.Glob) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return best.WorktreeSetup
}

// startSetup runs t's worktree setup (t.Worktree.Setup, status running)
// in the background.
func (e *Engine) startSetup(t hub.Thread) {
	ctx, cancel := context.WithCancel(context.Background())
	run := &setupRun{cancel: cancel, done: make(chan struct{})}
	e.setups.mu.Lock()
	if e.setups.m == nil {
		e.setups.m, e.setups.ran = map[string]*setupRun{}, map[string]bool{}
	}
	e.setups.m[t.ID], e.setups.ran[t.ID] = run, true
	e.setups.mu.Unlock()
	go func() {
		defer close(run.done)
		defer cancel()
		s := e.runSetup(ctx, t, run)
		e.setups.mu.Lock()
		delete(e.setups.m, t.ID)
		e.setups.mu.Unlock()
		e.storeSetup(t.ID, s)
	}()
}

// runSetup runs the commands one after the other with sh -c in the
// worktree (the agent's folder), $SWITCHBOARD_MAIN_CHECKOUT naming the
// checkout it was made from, and returns how the setup ended.
func (e *Engine) runSetup(ctx context.Context, t hub.Thread, run *setupRun) hub.WorktreeSetup {
	w := t.Worktree
	s := *w.Setup
	var out tailBuffer
	last := time.Now()
	flush := func(force bool) {
		if text := out.String(); force || time.Since(last) >= setupEvery {
			if text != s.Output {
				s.Output = text
				e.storeSetup(t.ID, s)
			}
			last = time.Now()
		}
	}
	for _, command := range s.Commands {
		out.Write([]byte("$ " + command + "\n"))
		shell, flag := "sh", "-c"
		if runtime.GOOS == "windows" {
			shell, flag = "cmd", "/C"
		}
		c := exec.Command(shell, flag, command)
		c.Dir = w.Path
		c.Env = append(os.Environ(), "SWITCHBOARD_MAIN_CHECKOUT="+w.Repo, "SWITCHBOARD_WORKTREE="+w.Top)
		c.Stdout, c.Stderr = &out, &out
		ownGroup(c)
		if err := c.Start(); err != nil {
			out.Write([]byte(err.Error() + "\n"))
			code := -1
			s.Status, s.ExitCode, s.Output = hub.SetupFailed, &code, out.String()
			return s
		}
		exited := make(chan error, 1)
		go func() { exited <- c.Wait() }()
		tick := time.NewTicker(setupEvery)
		var err error
	wait:
		for {
			select {
			case err = <-exited:
				break wait
			case <-ctx.Done():
				killGroup(c.Process.Pid)
				c.Process.Kill()
				<-exited
				tick.Stop()
				out.Write([]byte("(cancelled)\n"))
				s.Status, s.Output = hub.SetupCancelled, out.String()
				return s
			case <-tick.C:
				flush(false)
			}
		}
		tick.Stop()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code := ee.ExitCode()
			s.Status, s.ExitCode, s.Output = hub.SetupFailed, &code, out.String()
			return s
		} else if err != nil {
			code := -1
			out.Write([]byte(err.Error() + "\n"))
			s.Status, s.ExitCode, s.Output = hub.SetupFailed, &code, out.String()
			return s
		}
		flush(false)
	}
	s.Status, s.Output = hub.SetupDone, out.String()
	return s
}

// storeSetup stores s as the thread's setup and announces it
// (thread_updated).
func (e *Engine) storeSetup(id string, s hub.WorktreeSetup) {
	ctx := context.Background()
	t, err := e.store.GetThread(ctx, id)
	if err != nil || t.Worktree == nil {
		return
	}
	w := *t.Worktree
	w.Setup = &s
	if _, err := e.changeThread(ctx, hub.Caller{ClientID: t.ClientID, All: true}, hub.ThreadChange{ThreadID: id, Worktree: &w}); err != nil {
		e.log.Warn("hub: storing a worktree setup's progress failed", "thread", id, "err", err)
	}
}

// staleSetupNote ends the output of a setup the hub stopped during.
const staleSetupNote = "\n[Switchboard stopped while the setup ran: it did not finish. The thread is usable; run what is left yourself.]\n"

// endStaleSetup is t with its setup failed when it is stored as running
// but no run of this process has it: the hub stopped (crashed, was
// killed) while it ran, and nothing will end it. The end is stored once,
// in the background, with the same words (staleSetupNote); t is shown so
// at once.
func (e *Engine) endStaleSetup(t hub.Thread) hub.Thread {
	if t.Worktree == nil || t.Worktree.Setup == nil || t.Worktree.Setup.Status != hub.SetupRunning {
		return t
	}
	e.setups.mu.Lock()
	ours := e.setups.ran[t.ID] // running, or its end is being stored
	e.setups.mu.Unlock()
	if ours {
		return t
	}
	s := *t.Worktree.Setup
	s.Status = hub.SetupFailed
	s.Output += staleSetupNote
	w := *t.Worktree
	w.Setup = &s
	t.Worktree = &w
	if _, stored := e.staleSetups.LoadOrStore(t.ID, true); !stored {
		go e.storeSetup(t.ID, s)
	}
	return t
}

// waitSetup waits until the thread's setup (if one runs) ended; ctx's end
// stops the wait.
func (e *Engine) waitSetup(ctx context.Context, id string) error {
	e.setups.mu.Lock()
	run := e.setups.m[id]
	e.setups.mu.Unlock()
	if run == nil {
		return nil
	}
	select {
	case <-run.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CancelSetup implements hub.WorkService.
func (e *Engine) CancelSetup(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	if _, err := e.visibleThread(ctx, c, id); err != nil {
		return hub.Thread{}, err
	}
	e.setups.mu.Lock()
	run := e.setups.m[id]
	e.setups.mu.Unlock()
	if run == nil {
		return hub.Thread{}, hub.Errorf(hub.CodeConflict, "no worktree setup runs on thread %s", id)
	}
	run.cancel()
	select {
	case <-run.done:
	case <-ctx.Done():
		return hub.Thread{}, ctx.Err()
	}
	return e.GetThread(ctx, c, id)
}

// cancelSetups cancels every running setup (the hub is closing) and
// waits for their ends to be stored, or ctx's end.
func (e *Engine) cancelSetups(ctx context.Context) {
	e.setups.mu.Lock()
	runs := make([]*setupRun, 0, len(e.setups.m))
	for _, r := range e.setups.m {
		runs = append(runs, r)
	}
	e.setups.mu.Unlock()
	for _, r := range runs {
		r.cancel()
	}
	for _, r := range runs {
		select {
		case <-r.done:
		case <-ctx.Done():
			return
		}
	}
}

// tailBuffer keeps the last setupOutputMax bytes written to it; safe for
// the two writers (stdout, stderr) of one command.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > setupOutputMax {
		t.b = bytes.Clone(t.b[len(t.b)-setupOutputMax:])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
