package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// Listers: agent processes started outside any thread only to ask
// something of the agent (session/list, for importing sessions). Paging
// through an agent's sessions asks the same process for every page: the
// last lister used is kept, idle, for listerKeep (or the agent idle
// timeout, if shorter), and a listing of the same agent in the same
// folder reuses it. A kept lister holds its process slot; anyone who needs
// a slot takes that one first (evictLocked), and the hub's shutdown
// stops it.

// listerKeep is how long the last lister stays after its last use.
const listerKeep = 30 * time.Second

// keptLister is a lister process between uses: in e.lister, under e.mu.
type keptLister struct {
	key   string // agent id, NUL, folder
	a     *acp.Agent
	pid   int
	busy  bool  // a listing runs on it
	timer Timer // stops it once idle for the keep (the engine's clock)
	gen   int   // which keep the timer belongs to
}

// withLister runs fn with a lister of spec in cwd: the kept one when it
// matches and lives, else a new process, which is kept afterwards. A new
// process takes a slot of limits.maxAgentProcesses (a kept lister's or
// the least recently used idle agent's when none is free, else
// TOO_MANY_REQUESTS) and waits for a background probe of the agent to
// end. A lister serves none of the agent's requests: no permission, no
// file, no terminal. Its process is recorded (hub.AgentProcess without a
// thread) while it runs, so a restart after a crash stops it.
func (e *Engine) withLister(ctx context.Context, spec acp.AgentSpec, cwd string, fn func(*acp.Agent) error) error {
	key := spec.ID + "\x00" + cwd
	self := &threadRT{}
	e.mu.Lock()
	if k := e.lister; k != nil && k.key == key && !k.busy && agentAlive(k.a) && !e.closing {
		k.busy = true
		k.timer.Stop()
		e.mu.Unlock()
		err := fn(k.a)
		e.keepLister(k)
		return err
	}
	var err error
	switch {
	case e.closing:
		err = hub.Errorf(hub.CodeUpstreamUnavailable, "the hub is shutting down")
	case e.procs < e.cfg.MaxAgentProcesses:
		e.procs++
	case e.evictLocked(self): // a kept lister's slot, or the evicted agent's
	default:
		err = &hub.Error{Code: hub.CodeTooManyRequests,
			Message:    fmt.Sprintf("%d agent processes are running, the configured limit (limits.maxAgentProcesses)", e.procs),
			RetryAfter: e.retryAfterLocked()}
	}
	e.mu.Unlock()
	if err != nil {
		return err
	}
	done := e.startingAgent(ctx, spec.ID)
	cmd := spec.Command
	cmd.Dir = cwd
	a, err := acp.Launch(ctx, cmd, listerClient{}, e.agentOpts)
	done()
	if err != nil {
		e.mu.Lock()
		e.procs--
		e.mu.Unlock()
		return &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("starting %s failed: %v", spec.Name, err), Err: err}
	}
	e.rememberInit(spec.ID, a.Init)
	pid := a.Proc.PID()
	if err := e.commit(&hub.Write{AgentProcs: []hub.AgentProcess{{PID: pid, StartTime: processStartTime(pid), Agent: spec.ID}}}); err != nil {
		e.log.Warn("hub: recording an agent process failed", "err", err)
	}
	k := &keptLister{key: key, a: a, pid: pid, busy: true}
	err = fn(a)
	e.keepLister(k)
	return err
}

// keepLister makes k, whose use ended, the kept lister: its timer re-armed,
// replacing an idle kept one (stopped). k itself is stopped instead when
// the hub is closing, its agent died, or another kept lister is busy.
func (e *Engine) keepLister(k *keptLister) {
	e.mu.Lock()
	keep := min(listerKeep, e.cfg.AgentIdleTimeout)
	k.busy = false
	var stop *keptLister
	switch old := e.lister; {
	case e.closing || !agentAlive(k.a) || (old != nil && old != k && old.busy):
		stop = k
		if old == k {
			e.lister = nil
		}
	default:
		if old != nil && old != k {
			old.timer.Stop()
			stop = old
		}
		e.lister = k
		k.gen++
		gen := k.gen
		k.timer = e.afterFunc(keep, func() { e.expireLister(k, gen) })
	}
	e.mu.Unlock()
	if stop != nil {
		e.stopLister(stop, true)
	}
}

// expireLister stops k once its keep gen ran out, unless it was used
// since.
func (e *Engine) expireLister(k *keptLister, gen int) {
	e.mu.Lock()
	if e.lister != k || k.busy || k.gen != gen {
		e.mu.Unlock()
		return
	}
	e.lister = nil
	e.mu.Unlock()
	e.stopLister(k, true)
}

// takeListerLocked takes the kept lister, when idle, out of e.lister
// (e.mu held) and stops it in the background, its slot kept for the
// caller. It reports whether it did.
func (e *Engine) takeListerLocked() bool {
	k := e.lister
	if k == nil || k.busy {
		return false
	}
	e.lister = nil
	k.timer.Stop()
	e.log.Info("hub: stopping the idle session lister to free a process slot", "pid", k.pid)
	go e.stopLister(k, false)
	return true
}

// stopListerOnClose stops an idle kept lister at the hub's shutdown (a
// busy one is stopped when its listing ends: keepLister sees closing).
func (e *Engine) stopListerOnClose() {
	e.mu.Lock()
	k := e.lister
	if k != nil && !k.busy {
		e.lister = nil
		k.timer.Stop()
	} else {
		k = nil
	}
	e.mu.Unlock()
	if k != nil {
		e.stopLister(k, true)
	}
}

// stopLister stops k's process and forgets its record; freeSlot gives its
// process slot back (false: the slot went to whoever took the lister).
func (e *Engine) stopLister(k *keptLister, freeSlot bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	k.a.Close(ctx)
	if err := e.commit(&hub.Write{ForgetProcs: []int{k.pid}}); err != nil {
		e.log.Warn("hub: forgetting an agent process failed", "err", err)
	}
	if freeSlot {
		e.mu.Lock()
		e.procs--
		e.mu.Unlock()
	}
}

// listerClient serves the agent process withLister starts: it refuses
// every request the agent makes of the client.
type listerClient struct{}

var errLister = acp.NewError(acp.CodeMethodNotFound, "this agent process only lists sessions")

func (listerClient) SessionUpdate(context.Context, acp.SessionNotification) {}
func (listerClient) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.Cancelled(), nil
}
func (listerClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errLister
}
func (listerClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errLister
}
func (listerClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errLister
}
func (listerClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errLister
}
func (listerClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errLister
}
func (listerClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errLister
}
func (listerClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errLister
}

var (
	_ acp.FileSystem   = listerClient{}
	_ acp.TerminalHost = listerClient{}
)
