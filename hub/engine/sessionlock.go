package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// One writer per agent session: two Switchboard hubs of one user never
// drive the same agent session at once. A hub holds an exclusive lock on
// $XDG_RUNTIME_DIR/switchboard/sessions/<hash of agent id, folder and
// session id>.lock while an agent process of its has the session open; the file
// names the holder (pid and command line). A hub about to reopen or import
// a session another hub holds gets CONFLICT naming that hub. The lock goes
// with the agent process (its exit), with session/close and session/delete,
// and with the hub process itself (the kernel drops it). Without
// XDG_RUNTIME_DIR there is no lock. An editor that is not Switchboard
// driving the same session cannot be detected.

type heldSessionLock struct {
	f     *os.File
	owner *Engine
	agent *acp.Agent
	sid   string
}

var (
	sessionLocksMu sync.Mutex
	sessionLocks   = map[string]*heldSessionLock{} // this process's, by path
)

// sessionLockPath is the lock file of agentID's session sid in folder cwd
// (the folder too: agents' ids are unique per agent, a fake agent's per
// test are not); "" without XDG_RUNTIME_DIR.
func sessionLockPath(agentID, cwd, sid string) string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" || sid == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(agentID + "\x00" + cwd + "\x00" + sid))
	return filepath.Join(dir, "switchboard", "sessions", hex.EncodeToString(sum[:16])+".lock")
}

// lockSession takes the lock of agentID's session sid for a, the agent
// process that is about to open it; CONFLICT when another hub holds it.
// The same engine taking it again (a new process for the same thread)
// moves it to a.
func (e *Engine) lockSession(a *acp.Agent, agentID, cwd, sid string) error {
	path := sessionLockPath(agentID, cwd, sid)
	if path == "" || a == nil {
		return nil
	}
	sessionLocksMu.Lock()
	defer sessionLocksMu.Unlock()
	if h := sessionLocks[path]; h != nil {
		if h.owner != e {
			return sessionConflict(agentID, sid, readHolder(h.f))
		}
		h.agent = a
	} else {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			e.log.Warn("hub: session lock folder", "err", err)
			return nil // a lock we cannot take does not stop the user
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			e.log.Warn("hub: session lock", "err", err)
			return nil
		}
		if err := tryLockFile(f); err != nil {
			holder := readHolder(f)
			f.Close()
			return sessionConflict(agentID, sid, holder)
		}
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(fmt.Sprintf("Switchboard hub, pid %d: %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
		sessionLocks[path] = &heldSessionLock{f: f, owner: e, agent: a, sid: sid}
	}
	go func() {
		<-a.Done()
		unlockSessions(a, "")
	}()
	return nil
}

// unlockSessions drops the locks a holds: of session sid, or all ("").
func unlockSessions(a *acp.Agent, sid string) {
	sessionLocksMu.Lock()
	defer sessionLocksMu.Unlock()
	for path, h := range sessionLocks {
		if h.agent == a && (sid == "" || h.sid == sid) {
			delete(sessionLocks, path)
			h.f.Close() // releases the lock
		}
	}
}

func readHolder(f *os.File) string {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		return s
	}
	return "another Switchboard hub"
}

func sessionConflict(agentID, sid, holder string) error {
	return &hub.Error{Code: hub.CodeConflict,
		Message: fmt.Sprintf("%s's session %s is open in another Switchboard hub (%s): one hub drives an agent session at a time; close it there first", agentID, sid, holder),
		Details: map[string]any{"reason": hub.ReasonSessionLocked, "holder": holder}}
}
