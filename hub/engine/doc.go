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
// A thread's agent is started and its session opened on demand, by a turn,
// a set call or CreateThread's OpenSession (ensureSession, session.go):
// resumed, loaded or new, with the user's mode and options re-applied
// before anything is prompted (lifecycle.go). It is stopped after
// limits.agentIdleTimeout without a turn, or earlier when its process slot
// is needed for another thread (evict.go); compaction replaces its session
// (compact.go); each turn has a watchdog (watchdog.go). The lock order is
// on Engine; a watchdog's mutex is a leaf.
package engine
