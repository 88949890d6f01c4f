package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// maxRetryAfter bounds the Retry-After of a refused start: the soonest a
// slot may free is not known better than that.
const maxRetryAfter = 5 * time.Second

// takeSlotLocked reserves a process slot for tr, which needs its agent
// started, or answers TOO_MANY_REQUESTS. With every slot taken it first
// evicts the least recently used agent that is idle (evictLocked): its slot
// passes to tr. Only when every agent process has a running turn (or is
// otherwise busy) is the start refused, with a Retry-After of the sooner
// of maxRetryAfter and the soonest watchdog deadline among the running
// turns. e.mu and tr.rt.mu are held.
func (e *Engine) takeSlotLocked(tr *turnRT) error {
	if e.procs < e.cfg.MaxAgentProcesses {
		e.procs++
		tr.reserved = true
		return nil
	}
	if e.evictLocked(tr.rt) {
		tr.reserved = true // the evicted agent's slot
		return nil
	}
	return &hub.Error{Code: hub.CodeTooManyRequests,
		Message:    fmt.Sprintf("%d agent processes are running turns, the configured limit (limits.maxAgentProcesses)", e.procs),
		RetryAfter: e.retryAfterLocked()}
}

// evictLocked stops the least recently used agent process that is idle —
// no running turn, no client request waiting on its editor, no terminal
// still running, nobody starting or reopening its session — other than
// self's, and reports whether it found one. The victim's slot is not
// freed when it exits (Engine.slotless): the caller takes it over. The
// process is stopped in the background (closeAgent: session/close when
// advertised, stdin EOF, then its process group killed); the thread's next
// turn reopens its session like after an idle stop. e.mu and self.mu are
// held; it takes other threads' rt.mu (after e.mu, as the lock order says).
func (e *Engine) evictLocked(self *threadRT) bool {
	var victim *threadRT
	var va *acp.Agent
	var vsid string
	for _, rt := range e.threads {
		if rt == self {
			continue
		}
		if !rt.startMu.TryLock() { // a session is being opened
			continue
		}
		rt.mu.Lock()
		idle := agentAlive(rt.agent) && rt.turn == nil && rt.requests == 0 && rt.agent.RunningTerminals() == 0
		if idle && (victim == nil || rt.lastUsed.Before(victim.lastUsed)) {
			victim, va, vsid = rt, rt.agent, rt.sessionID
		}
		rt.mu.Unlock()
		rt.startMu.Unlock()
	}
	if victim == nil {
		return false
	}
	victim.mu.Lock()
	if victim.agent != va || victim.turn != nil {
		victim.mu.Unlock()
		return false // changed since (cannot happen: e.mu is held by startTurn's peers)
	}
	victim.agent = nil
	if victim.idle != nil {
		victim.idle.Stop()
	}
	victim.mu.Unlock()
	e.slotless[va] = true
	e.log.Info("hub: stopping the least recently used idle agent to free a process slot", "thread", victim.id, "agent", victim.spec.ID)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.closeAgent(ctx, va, vsid)
	}()
	return true
}

// retryAfterLocked is when a refused start may try again: the soonest
// watchdog deadline among the running turns, at most maxRetryAfter, at
// least a second. e.mu is held.
func (e *Engine) retryAfterLocked() time.Duration {
	d := maxRetryAfter
	now := e.now()
	for _, tr := range e.turns {
		if at := tr.wd.deadline(); !at.IsZero() {
			d = min(d, at.Sub(now))
		}
	}
	return max(d, time.Second)
}
