package engine

import (
	"context"
	"encoding/json"
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
//     thread of the repository; git merge-tree runs only for a peer in
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
	mu   sync.Mutex
	sets map[string]changeSet     // thread id → its change set (absent: not read yet)
	by   map[string][]hub.Overlap // thread id → its overlaps (absent: none)
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

// readChangeSet reads t's change set from git.
func readChangeSet(ctx context.Context, t hub.Thread) (changeSet, error) {
	r, err := openThread(ctx, t)
	if err != nil {
		return changeSet{}, err
	}
	cs := changeSet{common: r.CommonDir(), gitDir: r.GitDir(), top: r.Top}
	ends, err := gitwork.TurnEnds(ctx, r.Top, t.ID)
	if err != nil || len(ends) == 0 {
		return cs, err
	}
	cs.end = ends[len(ends)-1].Commit
	from, err := threadStart(ctx, r, t)
	if err != nil || from == "" {
		return cs, err
	}
	if cs.files, err = gitwork.Changed(ctx, r, from, cs.end); err != nil {
		return cs, err
	}
	slices.Sort(cs.files)
	return cs, nil
}

// changeSetOf is t's kept change set, read (and kept) when there is none
// or fresh asks for it; ok false when t's folder is not a git working
// tree the hub may read.
func (e *Engine) changeSetOf(ctx context.Context, t hub.Thread, fresh bool) (changeSet, bool) {
	s := &e.overlaps
	if !fresh {
		s.mu.Lock()
		cs, ok := s.sets[t.ID]
		s.mu.Unlock()
		if ok {
			return cs, true
		}
	}
	cs, err := readChangeSet(ctx, t)
	if err != nil {
		return changeSet{}, false
	}
	s.mu.Lock()
	if s.sets == nil {
		s.sets = map[string]changeSet{}
	}
	s.sets[t.ID] = cs
	s.mu.Unlock()
	return cs, true
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

// checkOverlaps reads the change set of thread id (whose turn just ended)
// and replaces the overlaps between it and every other live thread of its
// repository, announcing each thread whose overlaps changed.
func (e *Engine) checkOverlaps(ctx context.Context, id string) {
	t, err := e.store.GetThread(ctx, id)
	if err != nil || !live(t) {
		return
	}
	mine, ok := e.changeSetOf(ctx, t, true)
	if !ok {
		return
	}
	peers, err := e.liveThreads(ctx)
	if err != nil {
		e.log.Warn("hub: overlaps: listing threads failed", "err", err)
		return
	}
	var r gitwork.Repo // opened once, for merge-tree
	found := map[string][]hub.Overlap{id: nil}
	for _, p := range peers {
		if p.ID == id {
			continue
		}
		theirs, ok := e.changeSetOf(ctx, p, false)
		if !ok || theirs.common != mine.common {
			continue
		}
		shared := intersect(mine.files, theirs.files)
		if len(shared) == 0 {
			continue
		}
		var conflicts []string
		apart := theirs.gitDir != mine.gitDir // different checkouts: would they merge?
		if apart {
			if r.Top == "" {
				if r, err = openThread(ctx, t); err != nil {
					apart = false
				}
			}
			if apart {
				if conflicts, err = gitwork.MergeConflicts(ctx, r, mine.end, theirs.end); err != nil {
					e.log.Warn("hub: overlaps: merge-tree failed", "thread", id, "other", p.ID, "err", err)
					apart = false
				}
			}
		}
		for _, path := range shared {
			var conflict *bool
			if apart {
				c := slices.Contains(conflicts, path)
				conflict = &c
			}
			found[id] = append(found[id], hub.Overlap{Path: path, ThreadID: p.ID, Conflict: conflict})
			found[p.ID] = append(found[p.ID], hub.Overlap{Path: path, ThreadID: id, Conflict: conflict})
		}
	}
	e.announceOverlaps(ctx, e.overlaps.replace(id, found))
}

// dropOverlaps takes thread id out of the overlaps (it was archived,
// discarded or deleted) and announces every thread whose overlaps changed.
func (e *Engine) dropOverlaps(ctx context.Context, id string) {
	s := &e.overlaps
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

// publishedOverlaps adds the overlaps to the thread_updated events of a
// committed write before they are published (the store announces a
// thread as stored, without them).
func (e *Engine) publishedOverlaps(evs []hub.Event) {
	for i, ev := range evs {
		if ev.Type != hub.EventThreadUpdated || ev.ThreadID == "" {
			continue
		}
		ov := e.overlaps.get(ev.ThreadID)
		if len(ov) == 0 {
			continue
		}
		var p map[string]json.RawMessage
		var t hub.Thread
		if json.Unmarshal(ev.Payload, &p) != nil || json.Unmarshal(p["thread"], &t) != nil || t.Deleted || len(t.Overlaps) > 0 {
			continue
		}
		if t.Archived || (t.Worktree != nil && t.Worktree.Discarded) {
			continue
		}
		t.Overlaps = ov
		if raw, err := json.Marshal(t); err == nil {
			p["thread"] = raw
			if b, err := json.Marshal(p); err == nil {
				evs[i].Payload = b
			}
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
	e.runtime(id).snaps.queue(&e.snapsWG, func(ctx context.Context) { e.checkOverlaps(ctx, id) })
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
		if mine, ok = e.changeSetOf(ctx, t, false); !ok {
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
