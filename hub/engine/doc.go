// Package engine implements hub.Service over a hub.Store: threads, turns,
// permissions, and the ACP agent processes behind them.
//
// Every change is one hub.Write; its events are published to subscribers
// (hub/eventbus) only after the store committed it, so a client never sees an
// event that a crash could take back. A permission an agent asks for is
// stored before anyone sees it and fails closed: a timeout, a cancelled
// turn or a shutdown never approves it (permissions.go). New repairs what a
// previous run left behind before it serves a call (recovery.go).
//
// A prompt's way reads in order (docs/ARCHITECTURE.md): the turn
// (turns.go) starts the thread's agent process when none runs
// (agentproc.go: start, supervise, stop, the process slots), opens its ACP
// session (session.go: resumed, loaded or new) and gives the session the
// user's mode and config options back before anything is prompted
// (choices.go). A process is stopped after limits.agentIdleTimeout
// without a turn, or earlier when its slot is needed for another thread;
// compaction replaces its session (compact.go); each turn has a watchdog
// (watchdog.go). TestPromptPath holds the way to its order. The lock order
// is on Engine; a watchdog's mutex is a leaf.
package engine
