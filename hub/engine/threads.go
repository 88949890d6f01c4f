package engine

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// threadRT is the live state of a thread: its agent process and session,
// and its running turn. Fields are guarded by mu.
type threadRT struct {
	mu        sync.Mutex
	id        string
	agent     *acp.Agent    // nil until the first turn, and after it exits
	spec      acp.AgentSpec // what agent was started with
	sessionID string        // the agent's session in agent
	turn      *turnRT       // the running turn, if any
	replaying bool          // session/load replay in progress: updates are not new events
	replay    *replayLog    // an imported session's replay being recorded (replay.go)
	deleted   bool          // DeleteThread has begun: no new turn
	// urlElicits maps the agent's elicitationId of a URL-mode question to
	// the hub's, until the agent says it is complete (elicitcomplete.go).
	urlElicits map[string]string
	// subagents are the agent session's sub-agent sessions by id, with
	// their titles (subagent.go).
	subagents map[string]string
	idle      Timer // on the engine's clock (clock.go)
	// modes and config are the session's ACP SessionModeState and
	// configOptions as last reported (raw; nil: unknown), set when the
	// session opens and kept current by updates and set calls.
	modes, config json.RawMessage
	// prefix is the context block of a session opened outside a turn (by
	// a set call or CreateThread's OpenSession), for the next turn to send.
	prefix []acp.ContentBlock
	// prompted says a prompt of the thread reached its agent: its session
	// defaults are settled (choices.go, defaults.go); chosen are the choices the user
	// made on the thread ("mode", config option ids), which beat them.
	prompted bool
	chosen   map[string]bool

	// requests counts the agent's client requests waiting on the thread's
	// owner; lastUsed is when a turn or a call outside a turn last ended
	// (eviction picks the least recently used idle agent: agentproc.go).
	requests int
	lastUsed time.Time
	// usedFrac is the share of its context window the agent last reported
	// (usage_update used/size, 0: unknown); compactDue says it crossed
	// context.compactAt during a turn not yet compacted (compact.go).
	usedFrac   float64
	compactDue bool
	// reportedUsed is the context window's tokens the agent last
	// reported (usage_update used): its growth is a turn's tokens
	// (spend.go).
	reportedUsed int64
	// retry is the thread's last turn when it failed because its agent
	// needs signing in, waiting for the sign-in (authretry.go); nil once
	// retried, or when another turn started.
	retry *authRetry

	// startMu serialises starting the agent and opening its session (a
	// turn and a set call may both need it). Taken before mu.
	startMu sync.Mutex

	// snaps runs the thread's checkpoints and turn-end snapshots in
	// order, off the prompt's path (snapshots.go); its own lock.
	snaps snapLane
}

var clientIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func checkCaller(c hub.Caller) error {
	if !clientIDPattern.MatchString(c.ClientID) {
		return hub.Errorf(hub.CodeInvalidArgument, "X-Client-ID must match [A-Za-z0-9._-]{1,64}")
	}
	return nil
}

// visibleThread returns the thread if the caller may see it; another
// client's thread is NOT_FOUND, like a missing one.
func (e *Engine) visibleThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	if err := checkCaller(c); err != nil {
		return hub.Thread{}, err
	}
	t, err := e.store.GetThread(ctx, id)
	if err != nil {
		return hub.Thread{}, err
	}
	if !c.All && t.ClientID != c.ClientID {
		return hub.Thread{}, hub.Errorf(hub.CodeNotFound, "thread %s not found", id)
	}
	return t, nil
}

func (e *Engine) runtime(id string) *threadRT {
	e.mu.Lock()
	defer e.mu.Unlock()
	rt := e.threads[id]
	if rt == nil {
		rt = &threadRT{id: id}
		e.threads[id] = rt
	}
	return rt
}

// checkCwd is a thread's folder, cleaned: an absolute path of an existing
// folder, else INVALID_ARGUMENT.
func checkCwd(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", hub.Errorf(hub.CodeInvalidArgument, "cwd must be an absolute path")
	}
	cwd = filepath.Clean(cwd)
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", hub.Errorf(hub.CodeInvalidArgument, "cwd %s is not an existing folder", cwd)
	}
	return cwd, nil
}

// CreateThread implements Service.
func (e *Engine) CreateThread(ctx context.Context, c hub.Caller, req hub.CreateThreadRequest) (hub.Thread, error) {
	if err := checkCaller(c); err != nil {
		return hub.Thread{}, err
	}
	spec, ok := e.agentSpec(req.Agent)
	if !ok {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", req.Agent)
	}
	if d := acp.Detect(spec); !d.Available {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "agent %s is not available: %s", req.Agent, d.Reason)
	}
	cwd, err := checkCwd(req.Cwd)
	if err != nil {
		return hub.Thread{}, err
	}
	if err := checkMCPServers(req.MCPServers); err != nil {
		return hub.Thread{}, err
	}
	extra, err := e.checkExtraDirs(cwd, req.AdditionalDirectories) // extradirs.go
	if err != nil {
		return hub.Thread{}, err
	}
	instructions, err := e.threadInstructions(spec, cwd) // instructions.go
	if err != nil {
		return hub.Thread{}, err
	}
	title := e.redactString(strings.TrimSpace(req.Title))
	if title == "" {
		title = filepath.Base(cwd)
	}
	now := e.now()
	t := hub.Thread{ID: newID("th"), Agent: req.Agent, Cwd: cwd, Title: title, ClientID: c.ClientID,
		Status: hub.ThreadIdle, CreatedAt: now, UpdatedAt: now, AdditionalDirectories: extra,
		Instructions: instructions}
	if caps := req.ClientCapabilities; caps != nil && caps.Any() {
		t.ClientCapabilities = caps
	}
	wt, err := e.makeWorktree(ctx, req, t)
	if err != nil {
		return hub.Thread{}, err
	}
	t.Worktree = wt
	if cmds := e.config().worktreeSetupFor(cwd); wt != nil && len(cmds) > 0 && (req.Worktree == nil || !req.Worktree.Existing()) {
		wt.Setup = &hub.WorktreeSetup{Commands: cmds, Status: hub.SetupRunning} // setup.go, started once stored
	}
	ev, err := hub.NewEvent(hub.EventThreadUpdated, t, "", now, map[string]any{"thread": t})
	if err != nil {
		return hub.Thread{}, err
	}
	if err := e.commit(&hub.Write{Threads: []hub.Thread{t}, Events: []hub.Event{ev}}); err != nil {
		return hub.Thread{}, err
	}
	e.mcp.set(t.ID, req.MCPServers)
	if t.Worktree != nil && t.Worktree.Setup != nil {
		e.startSetup(t)
	}
	if req.OpenSession {
		t = e.openSessionNow(ctx, t)
	}
	return t, nil
}

// ListThreads implements Service: QueryThreads hiding archived threads.
func (e *Engine) ListThreads(ctx context.Context, c hub.Caller, limit int, cursor string) (hub.ThreadPage, error) {
	return e.QueryThreads(ctx, c, hub.ThreadQuery{Limit: limit, Cursor: cursor})
}

// GetThread implements Service.
func (e *Engine) GetThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	t, err := e.visibleThread(ctx, c, id)
	return e.withWorktreeStatus(ctx, e.withOverlaps(t), err)
}

// RenameThread implements Service.
func (e *Engine) RenameThread(ctx context.Context, c hub.Caller, id, title string) (hub.Thread, error) {
	title = strings.TrimSpace(title)
	if title == "" || len(title) > 200 {
		return hub.Thread{}, hub.Errorf(hub.CodeInvalidArgument, "title must be 1 to 200 characters")
	}
	title = e.redactString(title)
	return e.changeThread(ctx, c, hub.ThreadChange{ThreadID: id, Title: &title})
}

// changeThread commits ch, a change of the caller's thread, field-wise
// (hub.Write.ThreadChanges: it never writes back what it did not set, such
// as the status of a turn that started or ended meanwhile), announced by a
// thread_updated event carrying the thread as committed. It returns that
// thread.
func (e *Engine) changeThread(ctx context.Context, c hub.Caller, ch hub.ThreadChange) (hub.Thread, error) {
	if _, err := e.visibleThread(ctx, c, ch.ThreadID); err != nil {
		return hub.Thread{}, err
	}
	ch.UpdatedAt, ch.Announce = e.now(), true
	w := &hub.Write{ThreadChanges: []hub.ThreadChange{ch}}
	if err := e.commit(w); err != nil {
		return hub.Thread{}, err
	}
	return w.ThreadChanges[0].Thread, nil
}

// threadUpdated is the payload of a thread_updated event: {"thread": t},
// plus "deleted": true when t was deleted (Thread.Deleted is not part of
// the resource, and a deleted thread reads as closed otherwise).
func threadUpdated(t hub.Thread) map[string]any {
	p := map[string]any{"thread": t}
	if t.Deleted {
		p["deleted"] = true
	}
	return p
}

// deleteThreadNow cancels the thread's turn, stops its agent and deletes
// it (DeleteThread, worktree.go, decides first what becomes of a worktree).
func (e *Engine) deleteThreadNow(ctx context.Context, c hub.Caller, id string) error {
	th, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return err
	}
	rt := e.runtime(id)
	rt.mu.Lock()
	rt.deleted = true
	turn := rt.turn
	rt.mu.Unlock()
	if turn != nil {
		// The turn's final write stores the thread (idle): it must land
		// before the deletion, not undo it.
		e.cancelTurn(turn, "thread deleted")
		select {
		case <-turn.done:
		case <-time.After(e.cancelWait + 3*time.Second):
		case <-ctx.Done():
		}
	}
	e.deleteAgentSession(ctx, rt, th)
	e.stopAgent(ctx, rt)
	select { // the turn's last snapshots land before the checkpoints are pruned (snapshots.go)
	case <-rt.snaps.settled():
	case <-ctx.Done():
	}
	err = e.deleteThread(ctx, c, id)
	e.mu.Lock()
	delete(e.threads, id)
	e.mu.Unlock()
	e.dropOverlaps(ctx, id) // overlaps.go
	return err
}

// deleteThread stores the deletion: the thread's text is deleted (turns,
// permissions, events: hub.Write.DeleteThreads) and its row becomes a
// tombstone without title or folder. The thread_updated event with
// "deleted": true that announces it carries the thread as it was, live
// only: it is stored without its payload (a deleted thread's events are)
// and never replayed.
func (e *Engine) deleteThread(ctx context.Context, c hub.Caller, id string) error {
	t, err := e.visibleThread(ctx, c, id)
	if err != nil {
		return err
	}
	now := e.now()
	tomb := hub.Thread{ID: t.ID, Agent: t.Agent, ClientID: t.ClientID, Status: hub.ThreadClosed,
		Deleted: true, CreatedAt: t.CreatedAt, UpdatedAt: now}
	was := t
	was.Status, was.UpdatedAt, was.Deleted = hub.ThreadClosed, now, true
	ev, err := hub.NewEvent(hub.EventThreadUpdated, tomb, "", now, threadUpdated(was))
	if err != nil {
		return err
	}
	if err := e.commit(&hub.Write{Threads: []hub.Thread{tomb}, DeleteThreads: []string{id}, Events: []hub.Event{ev}}); err != nil {
		return err
	}
	e.forgetThreadRules(id) // the store deleted them with the thread
	e.mcp.set(id, nil)
	return nil
}

// ListAgents implements Service.
func (e *Engine) ListAgents(ctx context.Context) ([]hub.Agent, error) {
	specs := e.catalogue()
	out := make([]hub.Agent, 0, len(specs))
	for _, s := range specs {
		a := hub.Agent{ID: s.ID, Name: s.Name, Command: strings.Join(append([]string{s.Command.Path}, s.Command.Args...), " "), Status: hub.AgentAvailable, Install: s.Install, Icon: s.Icon}
		var caps *acp.AgentCapabilities
		if in, ok := e.agentInit(s.ID); ok {
			a.Version, a.Capabilities, a.AuthMethods = in.version, in.caps, in.auth
			caps = &acp.AgentCapabilities{}
			_ = json.Unmarshal(in.caps, caps) // malformed: stdio only
		}
		if caps == nil {
			a.ProbeError = e.probeError(s.ID)
		}
		a.MCPServers = e.agentMCPStatus(s, caps)
		if !s.Defaults.IsZero() {
			a.Defaults = &hub.SessionDefaults{Mode: s.Defaults.Mode, Options: maps.Clone(s.Defaults.Options)}
		}
		if s.NPM != nil {
			a.NPM = &hub.AgentPackage{Package: s.NPM.Package, Version: s.NPM.Version, MinNode: s.NPM.MinNode}
		}
		if s.Installed != nil {
			a.Installed = &hub.AgentInstalled{Version: s.Installed.Version, Path: s.Installed.Path}
			if s.Latest != "" && acp.NewerVersion(s.Latest, s.Installed.Version) {
				a.Update = s.Latest
			}
		}
		if d := acp.Detect(s); !d.Available {
			a.Status, a.Reason = hub.AgentUnavailable, d.Reason
		}
		out = append(out, a)
	}
	return out, nil
}
