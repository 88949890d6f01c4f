package engine

import (
	"fmt"
	"sync"
	"time"
)

// watchdog bounds one turn twice: a wall-clock cap (limits.turnTimeout,
// from the turn's start) and an idle bound (limits.turnIdleTimeout: no
// session/update and no agent request for that long). Either cancels the
// turn (then the agent is killed if it does not stop: cancelTurn). The idle
// clock is paused while the turn waits on someone else — a pending
// permission or client request of the turn (pause/resume) or a terminal
// the agent started still running — and starts afresh when the wait ends.
//
// Its timers run on Options.AfterFunc and read Options.Now, so a fake
// clock drives it in tests. Its mutex is a leaf.
type watchdog struct {
	e  *Engine
	tr *turnRT

	mu       sync.Mutex
	idle     time.Duration // 0: no idle bound
	capAt    time.Time     // the wall-clock deadline (zero: none)
	last     time.Time     // the last sign of life, or the end of the last pause
	paused   int           // waits in progress
	stopped  bool
	capTimer Timer
	idleT    Timer
}

func newWatchdog(e *Engine, tr *turnRT) *watchdog { return &watchdog{e: e, tr: tr} }

// start arms the timers with the configuration in force.
func (w *watchdog) start() {
	cfg := w.e.config()
	now := w.e.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.idle, w.last = cfg.TurnIdleTimeout, now
	if cfg.TurnTimeout > 0 {
		w.capAt = now.Add(cfg.TurnTimeout)
		w.capTimer = w.e.afterFunc(cfg.TurnTimeout, w.fireCap)
	}
	w.armLocked(w.idle)
}

// stop disarms the timers; nothing fires after it returns.
func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.capTimer != nil {
		w.capTimer.Stop()
	}
	if w.idleT != nil {
		w.idleT.Stop()
	}
}

func (w *watchdog) armLocked(d time.Duration) {
	if w.idle <= 0 || w.stopped {
		return
	}
	if w.idleT != nil {
		w.idleT.Stop()
	}
	w.idleT = w.e.afterFunc(d, w.fireIdle)
}

// touch records a sign of life: an update or a request from the agent.
// Cheap: it re-arms nothing (fireIdle looks at last).
func (w *watchdog) touch() {
	if w == nil {
		return
	}
	now := w.e.now()
	w.mu.Lock()
	w.last = now
	w.mu.Unlock()
}

// pause stops the idle clock until the matching resume.
func (w *watchdog) pause() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.paused++
	w.mu.Unlock()
}

// resume ends a pause; the idle clock starts afresh when none is left.
func (w *watchdog) resume() {
	if w == nil {
		return
	}
	now := w.e.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paused--
	if w.paused == 0 {
		w.last = now
		w.armLocked(w.idle)
	}
}

// terminalRuns reports whether a terminal the agent started still runs.
// It takes rt.mu; the caller holds no lock.
func (w *watchdog) terminalRuns() bool {
	rt := w.tr.rt
	rt.mu.Lock()
	a := rt.agent
	rt.mu.Unlock()
	return a != nil && a.RunningTerminals() > 0
}

func (w *watchdog) fireIdle() {
	terminal := w.terminalRuns()
	now := w.e.now()
	w.mu.Lock()
	if w.stopped || w.idle <= 0 {
		w.mu.Unlock()
		return
	}
	if w.paused > 0 || terminal {
		w.last = now
		if w.paused == 0 { // a terminal: look again later
			w.armLocked(w.idle)
		}
		w.mu.Unlock()
		return
	}
	if quiet := now.Sub(w.last); quiet < w.idle {
		w.armLocked(w.idle - quiet)
		w.mu.Unlock()
		return
	}
	w.stopped = true
	idle := w.idle
	w.mu.Unlock()
	w.tr.mu.Lock()
	w.tr.timedOut = fmt.Sprintf("the agent sent nothing for %v (limits.turnIdleTimeout); the turn was stopped", idle)
	w.tr.mu.Unlock()
	w.e.cancelTurn(w.tr, "the agent was silent past limits.turnIdleTimeout")
}

func (w *watchdog) fireCap() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.stopped = true
	w.mu.Unlock()
	w.tr.mu.Lock()
	w.tr.timedOut = "the turn ran past limits.turnTimeout and was stopped"
	w.tr.mu.Unlock()
	w.e.cancelTurn(w.tr, "the turn ran past limits.turnTimeout")
}

// deadline is when the watchdog fires at the soonest, if nothing else
// happens (zero: never).
func (w *watchdog) deadline() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.capAt
	if w.idle > 0 && w.paused == 0 && !w.stopped && !w.last.IsZero() {
		if at := w.last.Add(w.idle); d.IsZero() || at.Before(d) {
			d = at
		}
	}
	return d
}
