package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// Overlaps (issue 31 "Before two agents collide", ADR 0042): a live
// thread carries hub.Thread.Overlaps while another live thread of the same
// repository changed a file it changed. Contracts:
//   - "changed" is the thread's Changes since it started, read at the end
//     of its latest turn (the diff from its start to its latest turn-end
//     snapshot): a thread's set changes only when one of its turns ends,
//     so each set is computed once then and kept (overlapState.sets).
//   - The check runs on the thread's snapshot lane after its turn-end
//     snapshot (snapshots.go), for that thread against every other live
//     thread of the repository, one check at a time across threads; git merge-tree runs only for a peer in
//     another checkout that shares a changed file, between the two
//     threads' latest turn-end snapshots (which hold uncommitted work).
//   - Both threads' overlaps are replaced and each thread whose overlaps
//     changed gets a thread_updated event. Archiving, discarding or
//     deleting a thread takes it out of every other thread's overlaps
//     (dropOverlaps); unarchiving checks it again.
//   - Overlaps are derived from git and kept in memory: GetThread,
//     QueryThreads and the published thread_updated events carry them;
//     after a restart they come back as each live thread is checked again
//     (recheckOverlaps, at start).

// overlapState holds the threads' change sets and overlaps. Its mutex is
// a leaf.
type overlapState struct {
	// checking serialises the checks and drops (taken before mu, held
	// through a check's git): two threads whose turns end together would
	// otherwise each read the other's set from before its turn end, and
	// the one that replaced last would leave the pair's overlaps stale.
	// The check that runs last reads both threads' latest sets.
	checking sync.Mutex
	mu       sync.Mutex
	sets     map[string]changeSet     // thread id → its change set (absent: not read yet)
	by       map[string][]hub.Overlap // thread id → its overlaps (absent: none)
}

// changeSet is what a thread changed, as its latest turn-end snapshot
// says.
type changeSet struct {
	common, gitDir string   // its repository, its checkout (gitwork.Repo)
	top            string   // its checkout's top folder
	end            string   // its latest turn-end snapshot ("": none, no changes)
	files          []string // changed since it started, sorted
}

// get returns a copy of id's overlaps (nil when none).
func (s *overlapState) get(id string) []hub.Overlap {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.by[id])
}

// withOverlaps is t with its overlaps.
func (e *Engine) withOverlaps(t hub.Thread) hub.Thread {
	t.Overlaps = e.overlaps.get(t.ID)
	return t
}

// live reports whether t takes part in overlaps: not archived, not
// deleted, its worktree (if any) not discarded.
func live(t hub.Thread) bool {
	return !t.Archived && !t.Deleted && (t.Worktree == nil || !t.Worktree.Discarded)
}

// readChangeSet reads t's change set from git: from r (t's checkout, as
// openThread opened it) and end (its latest turn-end snapshot; "" to look
// it up). It returns the comparer it used, for the caller to close.
func readChangeSet(ctx context.Context, t hub.Thread, r gitwork.Repo, end string) (changeSet, *gitwork.Comparer, error) {
	cs := changeSet{common: r.CommonDir(), gitDir: r.GitDir(), top: r.Top, end: end}
	if cs.end == "" {
		ends, err := gitwork.TurnEnds(ctx, r.Top, t.ID)
		if err != nil || len(ends) == 0 {
			return cs, nil, err
		}
		cs.end = ends[len(ends)-1].Commit
	}
	from, err := threadStart(ctx, r, t)
	if err != nil || from == "" {
		return cs, nil, err
	}
	cmp, err := gitwork.NewComparer(ctx, r)
	if err != nil {
		return cs, nil, err
	}
	if cs.files, err = cmp.Changed(ctx, from, cs.end); err != nil {
		cmp.Close()
		return cs, nil, err
	}
	return cs, cmp, nil
}

// changeSetOf is t's kept change set, read from git (and kept) when there
// is none; ok false when t's folder is not a git working tree the hub may
// read.
func (e *Engine) changeSetOf(ctx context.Context, t hub.Thread) (changeSet, bool) {
	s := &e.overlaps
	s.mu.Lock()
	cs, ok := s.sets[t.ID]
	s.mu.Unlock()
	if ok {
		return cs, true
	}
	r, err := openThread(ctx, t)
	if err != nil {
		return changeSet{}, false
	}
	cs, cmp, err := readChangeSet(ctx, t, r, "")
	if cmp != nil {
		cmp.Close()
	}
	if err != nil {
		return changeSet{}, false
	}
	return s.keep(t.ID, cs, false), true
}

// keep stores id's change set and returns the one kept: a set read for
// another thread's check (own false) never replaces one the thread's own
// check stored meanwhile, which may be newer.
func (s *overlapState) keep(id string, cs changeSet, own bool) changeSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sets == nil {
		s.sets = map[string]changeSet{}
	}
	if kept, ok := s.sets[id]; ok && !own {
		return kept
	}
	s.sets[id] = cs
	return cs
}

// liveThreads lists every client's live threads.
func (e *Engine) liveThreads(ctx context.Context) ([]hub.Thread, error) {
	var out []hub.Thread
	f := hub.ThreadFilter{All: true, Archived: hub.ArchivedHide, Limit: 500}
	for {
		ts, next, err := e.store.ListThreads(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if live(t) {
				out = append(out, t)
			}
		}
		if next == "" {
			return out, nil
		}
		f.Cursor = next
	}
}

// checkOverlaps reads the change set of thread id (whose turn just ended:
// r is its checkout and end its turn-end snapshot, as afterTurn stored
// it; r nil to open it and look end up) and replaces the overlaps
// between it and every other live thread of its repository, announcing
// each thread whose overlaps changed. Its git: the thread's diff, and one
// merge-tree for every peer in another checkout that shares a file.
func (e *Engine) checkOverlaps(ctx context.Context, id string, r *gitwork.Repo, end string) {
	e.overlaps.checking.Lock()
	defer e.overlaps.checking.Unlock()
	t, err := e.store.GetThread(ctx, id)
	if err != nil || !live(t) {
		return
	}
	if r == nil {
		or, err := openThread(ctx, t)
		if err != nil {
			return
		}
		r, end = &or, ""
	}
	mine, cmp, err := readChangeSet(ctx, t, *r, end)
	if err != nil {
		return
	}
	if cmp != nil {
		defer cmp.Close()
	}
	mine = e.overlaps.keep(id, mine, true)
	peers, err := e.liveThreads(ctx)
	if err != nil {
		e.log.Warn("hub: overlaps: listing threads failed", "err", err)
		return
	}
	type peer struct {
		id     string
		shared []string
		apart  bool // in another checkout: would their work merge?
	}
	var found []peer
	var pairs [][2]string
	for _, p := range peers {
		if p.ID == id || len(mine.files) == 0 {
			continue
		}
		theirs, ok := e.changeSetOf(ctx, p)
		if !ok || theirs.common != mine.common {
			continue
		}
		shared := intersect(mine.files, theirs.files)
		if len(shared) == 0 {
			continue
		}
		apart := theirs.gitDir != mine.gitDir && cmp != nil
		if apart {
			pairs = append(pairs, [2]string{mine.end, theirs.end})
		}
		found = append(found, peer{p.ID, shared, apart})
	}
	var conflicts [][]string
	if len(pairs) > 0 {
		if conflicts, err = cmp.Conflicts(ctx, pairs); err != nil {
			e.log.Warn("hub: overlaps: merge-tree failed", "thread", id, "err", err)
		}
	}
	next := map[string][]hub.Overlap{id: nil}
	k := 0
	for _, p := range found {
		var files []string
		known := false
		if p.apart {
			if conflicts != nil {
				files, known = conflicts[k], true
			}
			k++
		}
		for _, path := range p.shared {
			var conflict *bool
			if known {
				c := slices.Contains(files, path)
				conflict = &c
			}
			next[id] = append(next[id], hub.Overlap{Path: path, ThreadID: p.id, Conflict: conflict})
			next[p.id] = append(next[p.id], hub.Overlap{Path: path, ThreadID: id, Conflict: conflict})
		}
	}
	e.announceOverlaps(ctx, e.overlaps.replace(id, next))
}

// dropOverlaps takes thread id out of the overlaps (it was archived,
// discarded or deleted) and announces every thread whose overlaps changed.
func (e *Engine) dropOverlaps(ctx context.Context, id string) {
	s := &e.overlaps
	s.checking.Lock()
	defer s.checking.Unlock()
	s.mu.Lock()
	delete(s.sets, id)
	s.mu.Unlock()
	e.announceOverlaps(ctx, s.replace(id, map[string][]hub.Overlap{id: nil}))
}

// replace sets id's overlaps to found[id] and, in every other thread's,
// the entries naming id to found[that thread] (found holds only those
// naming id). It returns the threads whose overlaps changed.
func (s *overlapState) replace(id string, found map[string][]hub.Overlap) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[string][]hub.Overlap{}
	}
	var changed []string
	set := func(tid string, next []hub.Overlap) {
		slices.SortFunc(next, func(a, b hub.Overlap) int {
			return strings.Compare(a.Path+"\x00"+a.ThreadID, b.Path+"\x00"+b.ThreadID)
		})
		if overlapsEqual(s.by[tid], next) {
			return
		}
		if len(next) == 0 {
			delete(s.by, tid)
		} else {
			s.by[tid] = next
		}
		changed = append(changed, tid)
	}
	set(id, found[id])
	others := map[string]bool{}
	for tid := range s.by {
		others[tid] = true
	}
	for tid := range found {
		others[tid] = true
	}
	for tid := range others {
		if tid == id {
			continue
		}
		next := slices.DeleteFunc(slices.Clone(s.by[tid]), func(o hub.Overlap) bool { return o.ThreadID == id })
		set(tid, append(next, found[tid]...))
	}
	slices.Sort(changed)
	return changed
}

func overlapsEqual(a, b []hub.Overlap) bool {
	return slices.EqualFunc(a, b, func(x, y hub.Overlap) bool {
		return x.Path == y.Path && x.ThreadID == y.ThreadID && (x.Conflict == nil) == (y.Conflict == nil) &&
			(x.Conflict == nil || *x.Conflict == *y.Conflict)
	})
}

// announceOverlaps commits a thread_updated event for each of the threads
// ids (those still there), carrying its overlaps.
func (e *Engine) announceOverlaps(ctx context.Context, ids []string) {
	w := &hub.Write{}
	now := e.now()
	for _, id := range ids {
		t, err := e.store.GetThread(ctx, id)
		if err != nil {
			continue
		}
		if ev, err := hub.NewEvent(hub.EventThreadUpdated, e.withOverlaps(t), "", now, map[string]any{"thread": e.withOverlaps(t)}); err == nil {
			w.Events = append(w.Events, ev)
		}
	}
	if len(w.Events) > 0 {
		if err := e.commit(w); err != nil {
			e.log.Warn("hub: announcing overlaps failed", "err", err)
		}
	}
}

// announcedOverlaps gives each announced thread change of w the thread's
// overlaps, which the store puts in the thread_updated it writes: the
// event is the same stored and streamed (API.md "Stored = streamed").
func (e *Engine) announcedOverlaps(w *hub.Write) {
	for i := range w.ThreadChanges {
		c := &w.ThreadChanges[i]
		if c.Announce && c.Overlaps == nil {
			c.Overlaps = e.overlaps.get(c.ThreadID)
		}
	}
}

// recheckOverlaps checks every live thread with a turn-end snapshot again,
// each on its lane (at start: overlaps are not stored).
func (e *Engine) recheckOverlaps(ctx context.Context) {
	ts, err := e.liveThreads(ctx)
	if err != nil {
		return
	}
	for _, t := range ts {
		e.queueOverlapCheck(t.ID)
	}
}

// queueOverlapCheck queues checkOverlaps for thread id on its lane.
func (e *Engine) queueOverlapCheck(id string) {
	e.runtime(id).snaps.queue(&e.snapsWG, func(ctx context.Context) { e.checkOverlaps(ctx, id, nil, "") })
}

// markOverlap adds hub.FlagOverlap to desc, the description of a request
// of thread t, when it edits a file another live thread of t's repository
// changed (its kept change set): the card says so before the two agents
// collide.
func (e *Engine) markOverlap(t hub.Thread, desc *hub.PermissionRequest) {
	if desc == nil || len(desc.Paths) == 0 || !slices.Contains([]string{"edit", "delete", "move"}, desc.Kind) {
		return
	}
	s := &e.overlaps
	s.mu.Lock()
	mine, ok := s.sets[t.ID]
	var others []changeSet
	for id, cs := range s.sets {
		if id != t.ID && len(cs.files) > 0 {
			others = append(others, cs)
		}
	}
	s.mu.Unlock()
	if len(others) == 0 {
		return
	}
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		if mine, ok = e.changeSetOf(ctx, t); !ok {
			return
		}
	}
	for _, p := range desc.Paths {
		rel, err := filepath.Rel(mine.top, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, cs := range others {
			if cs.common == mine.common && slices.Contains(cs.files, rel) {
				desc.Flags = append(desc.Flags, hub.FlagOverlap)
				slices.Sort(desc.Flags)
				return
			}
		}
	}
}

// intersect is the paths in both sorted lists, sorted.
func intersect(a, b []string) []string {
	var out []string
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			out = append(out, a[i])
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return out
}
