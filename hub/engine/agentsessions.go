package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// The agent's own sessions (issue 16): listing them (session/list, in a
// short-lived process of the agent) and importing one into a thread bound
// to it (ImportSession: session/load's replay becomes the thread's
// history, replay.go; else session/resume).

// Bounds on what an agent's session list may carry (it is untrusted).
const (
	maxListedSessions = 500  // entries kept of one page
	maxSessionIDLen   = 512  // bytes of a session id
	maxSessionTitle   = 200  // runes of a title
	maxSessionCwd     = 4096 // bytes of a cwd
	maxSessionCursor  = 4096 // bytes of a cursor, the agent's or the caller's
)

// listTimeout bounds starting an agent and listing a page of its sessions.
const listTimeout = time.Minute

// ListAgentSessions implements Service.
func (e *Engine) ListAgentSessions(ctx context.Context, c hub.Caller, agentID, cwd, cursor string) (hub.AgentSessionPage, error) {
	if err := checkCaller(c); err != nil {
		return hub.AgentSessionPage{}, err
	}
	spec, err := e.sessionAgent(agentID)
	if err != nil {
		return hub.AgentSessionPage{}, err
	}
	if cwd, err = checkCwd(cwd); err != nil {
		return hub.AgentSessionPage{}, err
	}
	if len(cursor) > maxSessionCursor {
		return hub.AgentSessionPage{}, hub.Errorf(hub.CodeInvalidArgument, "cursor is longer than %d bytes", maxSessionCursor)
	}
	if caps, ok := e.knownCaps(agentID); ok && !hasJSON(caps.SessionCapabilities.List) {
		return hub.AgentSessionPage{}, listUnsupported(spec)
	}
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	var resp acp.ListSessionsResponse
	err = e.withLister(ctx, spec, cwd, func(a *acp.Agent) error {
		if !hasJSON(a.Capabilities().SessionCapabilities.List) {
			return listUnsupported(spec)
		}
		var err error
		resp, err = a.ListSessions(ctx, cwd, cursor)
		if err != nil {
			return &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("%s could not list its sessions: %v", spec.Name, err), Err: err}
		}
		return nil
	})
	if err != nil {
		return hub.AgentSessionPage{}, err
	}
	page := hub.AgentSessionPage{Sessions: []hub.AgentSession{}}
	if len(resp.NextCursor) <= maxSessionCursor && utf8.ValidString(resp.NextCursor) {
		page.NextCursor = resp.NextCursor
	} else {
		e.log.Warn("hub: an agent's session list cursor was unusable; paging stops", "agent", agentID, "bytes", len(resp.NextCursor))
	}
	var ids []string
	for _, s := range resp.Sessions {
		if len(page.Sessions) == maxListedSessions {
			break
		}
		if !validSessionID(s.SessionID) {
			continue
		}
		as := hub.AgentSession{SessionID: s.SessionID, Cwd: cleanText(s.Cwd, maxSessionCwd), Title: e.redactString(cleanText(s.Title, maxSessionTitle))}
		if t, err := time.Parse(time.RFC3339Nano, s.UpdatedAt); err == nil {
			t = t.UTC()
			as.UpdatedAt = &t
		}
		page.Sessions = append(page.Sessions, as)
		ids = append(ids, s.SessionID)
	}
	bound, err := e.boundThreads(ctx, c, agentID, ids)
	if err != nil {
		return hub.AgentSessionPage{}, err
	}
	for i := range page.Sessions {
		if t, ok := bound[page.Sessions[i].SessionID]; ok && visibleTo(c, t) {
			page.Sessions[i].ThreadID = t.ID
		}
	}
	return page, nil
}

// ImportSession implements Service.
func (e *Engine) ImportSession(ctx context.Context, c hub.Caller, req hub.ImportSessionRequest) (hub.ImportSessionResult, error) {
	t, created, err := e.importSession(ctx, c, req)
	return hub.ImportSessionResult{Thread: t, Created: created}, err
}

func (e *Engine) importSession(ctx context.Context, c hub.Caller, req hub.ImportSessionRequest) (hub.Thread, bool, error) {
	if err := checkCaller(c); err != nil {
		return hub.Thread{}, false, err
	}
	spec, err := e.sessionAgent(req.Agent)
	if err != nil {
		return hub.Thread{}, false, err
	}
	cwd, err := checkCwd(req.Cwd)
	if err != nil {
		return hub.Thread{}, false, err
	}
	if !validSessionID(req.SessionID) {
		return hub.Thread{}, false, hub.Errorf(hub.CodeInvalidArgument, "sessionId must be 1 to %d bytes of text without control characters", maxSessionIDLen)
	}
	if caps, ok := e.knownCaps(req.Agent); ok && !caps.LoadSession && !hasJSON(caps.SessionCapabilities.Resume) {
		return hub.Thread{}, false, importUnsupported(spec)
	}
	// One import of a session at a time: the second finds the first's
	// thread, complete (the store's unique index holds it either way).
	defer e.lockImport(req.Agent + "\x00" + req.SessionID)()
	bound, err := e.boundThreads(ctx, c, req.Agent, []string{req.SessionID})
	if err != nil {
		return hub.Thread{}, false, err
	}
	if t, ok := bound[req.SessionID]; ok {
		if !visibleTo(c, t) {
			return hub.Thread{}, false, alreadyImported(req)
		}
		t, err := e.GetThread(ctx, c, t.ID)
		return t, false, err
	}
	title := e.redactString(cleanText(strings.TrimSpace(req.Title), maxSessionTitle))
	if title == "" {
		title = filepath.Base(cwd)
	}
	now := e.now()
	t := hub.Thread{ID: newID("th"), Agent: req.Agent, Cwd: cwd, Title: title, ClientID: c.ClientID,
		Status: hub.ThreadIdle, CreatedAt: now, UpdatedAt: now, AgentSessionID: req.SessionID,
		Imported: &hub.ImportedSession{SessionID: req.SessionID, History: hub.ImportedHistoryAgent}}
	ev, err := hub.NewEvent(hub.EventThreadUpdated, t, "", now, map[string]any{"thread": t})
	if err != nil {
		return hub.Thread{}, false, err
	}
	if err := e.commit(&hub.Write{Threads: []hub.Thread{t}, Events: []hub.Event{ev}}); err != nil {
		if hub.ErrorCode(err) == hub.CodeConflict {
			return hub.Thread{}, false, alreadyImported(req)
		}
		return hub.Thread{}, false, err
	}
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), setCallTimeout)
	defer cancel()
	tr := &turnRT{thread: t, rt: e.runtime(t.ID), ctx: octx, importing: true}
	rt, _, _, err := e.openOutside(tr)
	if err != nil {
		// Nothing stays of a failed import: its thread goes, with any
		// history already stored.
		if derr := e.deleteThreadNow(context.WithoutCancel(ctx), c, t.ID); derr != nil {
			e.log.Warn("hub: removing a failed import's thread failed", "thread", t.ID, "err", derr)
		}
		return hub.Thread{}, false, err
	}
	e.idleUnlessTurn(rt)
	if tr.importedHow == openedLoaded {
		h := hub.ImportedHistoryStored
		if _, err := e.changeThread(ctx, c, hub.ThreadChange{ThreadID: t.ID, ImportedHistory: &h}); err != nil {
			e.log.Warn("hub: recording an imported thread's history failed", "thread", t.ID, "err", err)
		}
	}
	got, err := e.GetThread(ctx, c, t.ID)
	return got, true, err
}

// openImported opens the imported session tr.thread.AgentSessionID on a:
// session/load when the agent has it, its replay recorded (replay.go) and
// stored as the thread's history before it answers; else, or when load
// fails, session/resume (the history stays with the agent). Never a new
// session: an agent that has neither, or refuses both, fails the import.
// It sets tr.importedHow.
func (e *Engine) openImported(tr *turnRT, a *acp.Agent, mcp []acp.MCPServer) (string, acp.SessionSetup, []acp.ContentBlock, string, error) {
	thread, rt := tr.thread, tr.rt
	sid := thread.AgentSessionID
	if err := e.lockSession(a, thread.Agent, agentDir(thread), sid); err != nil { // session.go: one hub per agent session
		return "", acp.SessionSetup{}, nil, "", err
	}
	caps := a.Capabilities()
	var errs []error
	if caps.LoadSession {
		log := &replayLog{}
		rt.mu.Lock()
		rt.replay, rt.replaying = log, true
		rt.mu.Unlock()
		s, err := a.LoadSessionIn(tr.ctx, sid, sessionDirs(thread), mcp)
		rt.mu.Lock()
		rt.replay, rt.replaying = nil, false
		rt.mu.Unlock()
		if err == nil {
			for _, w := range e.replayWrites(thread, log) {
				if err := e.commit(w); err != nil {
					return "", s, nil, "", fmt.Errorf("storing the imported history: %w", err)
				}
			}
			tr.importedHow = openedLoaded
			return sid, s, nil, openedLoaded, nil
		}
		errs = append(errs, fmt.Errorf("session/load: %w", err))
	}
	if hasJSON(caps.SessionCapabilities.Resume) {
		s, err := a.ResumeSessionIn(tr.ctx, sid, sessionDirs(thread), mcp)
		if err == nil {
			tr.importedHow = openedResumed
			return sid, s, nil, openedResumed, nil
		}
		errs = append(errs, fmt.Errorf("session/resume: %w", err))
	}
	if len(errs) == 0 {
		return "", acp.SessionSetup{}, nil, "", importUnsupported(e.specOf(thread.Agent))
	}
	err := errors.Join(errs...)
	return "", acp.SessionSetup{}, nil, "", &hub.Error{Code: hub.CodeUpstreamUnavailable, Message: fmt.Sprintf("the agent could not reopen session %s: %v", sid, err), Err: err}
}

// sessionAgent is agentID's spec when it is configured, enabled and
// available, else INVALID_ARGUMENT.
func (e *Engine) sessionAgent(agentID string) (acp.AgentSpec, error) {
	spec, ok := e.agentSpec(agentID)
	if !ok || spec.Disabled {
		return acp.AgentSpec{}, hub.Errorf(hub.CodeInvalidArgument, "unknown agent %q", agentID)
	}
	if d := acp.Detect(spec); !d.Available {
		return acp.AgentSpec{}, hub.Errorf(hub.CodeInvalidArgument, "agent %s is not available: %s", agentID, d.Reason)
	}
	return spec, nil
}

func (e *Engine) specOf(agentID string) acp.AgentSpec {
	spec, _ := e.agentSpec(agentID)
	if spec.Name == "" {
		spec.Name = agentID
	}
	return spec
}

// knownCaps is agentID's capabilities from its last initialize answer,
// when the hub has heard one.
func (e *Engine) knownCaps(agentID string) (acp.AgentCapabilities, bool) {
	in, ok := e.agentInit(agentID)
	if !ok || !hasJSON(in.caps) {
		return acp.AgentCapabilities{}, false
	}
	var caps acp.AgentCapabilities
	if err := json.Unmarshal(in.caps, &caps); err != nil {
		return acp.AgentCapabilities{}, false
	}
	return caps, true
}

func listUnsupported(spec acp.AgentSpec) error {
	return &hub.Error{Code: hub.CodeInvalidArgument, Message: fmt.Sprintf("%s does not list its sessions (no session/list)", spec.Name),
		Details: map[string]any{"reason": hub.ReasonSessionListUnsupported, "agent": spec.ID}}
}

func importUnsupported(spec acp.AgentSpec) error {
	return &hub.Error{Code: hub.CodeInvalidArgument, Message: fmt.Sprintf("%s can reopen none of its sessions (neither session/load nor session/resume)", spec.Name),
		Details: map[string]any{"reason": hub.ReasonSessionImportUnsupported, "agent": spec.ID}}
}

func alreadyImported(req hub.ImportSessionRequest) error {
	return &hub.Error{Code: hub.CodeConflict, Message: fmt.Sprintf("session %s of %s is already another client's thread", req.SessionID, req.Agent),
		Details: map[string]any{"reason": hub.ReasonSessionAlreadyImported}}
}

// visibleTo reports whether caller c may see thread t.
func visibleTo(c hub.Caller, t hub.Thread) bool { return c.All || t.ClientID == c.ClientID }

// boundThreads maps each of ids to the thread of agentID bound to it: the
// one imported from it, else one whose last session it is (the caller's
// own first).
func (e *Engine) boundThreads(ctx context.Context, c hub.Caller, agentID string, ids []string) (map[string]hub.Thread, error) {
	threads, err := e.store.ThreadsBySession(ctx, agentID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]hub.Thread, len(threads))
	better := func(t, than hub.Thread) bool {
		if (t.Imported != nil) != (than.Imported != nil) {
			return t.Imported != nil
		}
		return visibleTo(c, t) && !visibleTo(c, than)
	}
	for _, t := range threads {
		for _, key := range []string{t.AgentSessionID, importedID(t)} {
			if key == "" {
				continue
			}
			if cur, ok := out[key]; !ok || better(t, cur) {
				out[key] = t
			}
		}
	}
	return out, nil
}

func importedID(t hub.Thread) string {
	if t.Imported == nil {
		return ""
	}
	return t.Imported.SessionID
}

// importLocks serialises the imports of one agent session (keyed by agent
// and session id); entries live while someone holds or waits for them.
type importLocks struct {
	mu sync.Mutex
	m  map[string]*importLock
}

type importLock struct {
	mu sync.Mutex
	n  int
}

// lockImport locks key and returns its unlock.
func (e *Engine) lockImport(key string) (unlock func()) {
	l := &e.imports
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[string]*importLock)
	}
	k := l.m[key]
	if k == nil {
		k = &importLock{}
		l.m[key] = k
	}
	k.n++
	l.mu.Unlock()
	k.mu.Lock()
	return func() {
		k.mu.Unlock()
		l.mu.Lock()
		if k.n--; k.n == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
}

// validSessionID reports whether id may name an agent session here:
// 1 to maxSessionIDLen bytes of valid UTF-8 without control characters.
func validSessionID(id string) bool {
	if id == "" || len(id) > maxSessionIDLen || !utf8.ValidString(id) {
		return false
	}
	return strings.IndexFunc(id, unicode.IsControl) < 0
}

// cleanText is s as valid UTF-8 with control characters (newlines, bidi
// overrides' neighbours, escapes) replaced by spaces, cut to max runes.
func cleanText(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return strings.TrimSpace(s)
}
