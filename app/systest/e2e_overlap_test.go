//go:build linux

package systest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// apiOverlapThread is a thread as GET /v1/threads/{id} answers, with its
// overlaps (issue 31 "Before two agents collide").
type apiOverlapThread struct {
	apiThread
	Overlaps []apiOverlap `json:"overlaps"`
}

type apiOverlap struct {
	Path     string `json:"path"`
	ThreadID string `json:"threadId"`
	Conflict *bool  `json:"conflict"`
}

func (o apiOverlap) String() string {
	c := "absent"
	if o.Conflict != nil {
		c = fmt.Sprint(*o.Conflict)
	}
	return o.Path + "↔" + o.ThreadID + " conflict " + c
}

// TestE2EOverlaps drives two agents onto the same file, through the real
// binary against real git repositories: in the same checkout, and in two
// worktrees whose work would or would not merge; archiving one thread
// clears the other's overlap.
func TestE2EOverlaps(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	bins := buildE2E(t)
	h := newHub(t, bins, hubConfig{
		"permissions": map[string]any{"timeout": "20s"},
		"worktrees":   map[string]any{"location": t.TempDir()},
	})
	decline := func(apiPermission) any { return map[string]string{"outcome": "declined"} }
	write := func(h *hubProc, id, path, text string) {
		t.Helper()
		if out, perms := confinedTurn(h, id, "fs-write "+path+" "+text, decline); out != "fs-write ok" || len(perms) != 0 {
			t.Fatalf("fs-write %s: %q, %d permissions", path, out, len(perms))
		}
	}
	// overlapsOf waits until thread id's overlaps are want (as strings).
	overlapsOf := func(h *hubProc, id string, want ...string) {
		t.Helper()
		var got []string
		if !waitFor(30*time.Second, func() bool {
			var r struct{ Thread apiOverlapThread }
			h.call("GET", "/v1/threads/"+id, nil, 200, &r)
			got = got[:0]
			for _, o := range r.Thread.Overlaps {
				got = append(got, o.String())
			}
			return fmt.Sprint(got) == fmt.Sprint(want)
		}) {
			t.Fatalf("thread %s overlaps %q, want %q", id, got, want)
		}
	}

	t.Run("same checkout: both threads show the file and the other thread", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "start\n", "b.txt": "b\n"})
		one, two := h.newThread("fake", repo), h.newThread("fake", repo)
		write(h, one.ID, filepath.Join(repo, "a.txt"), "one\n")
		write(h, two.ID, filepath.Join(repo, "b.txt"), "two\n")
		overlapsOf(h, one.ID) // different files: no overlap
		write(h, two.ID, filepath.Join(repo, "a.txt"), "two\n")
		overlapsOf(h, two.ID, "a.txt↔"+one.ID+" conflict absent")
		overlapsOf(h, one.ID, "a.txt↔"+two.ID+" conflict absent")
		// The list carries them too.
		var list struct{ Threads []apiOverlapThread }
		h.call("GET", "/v1/threads", nil, 200, &list)
		for _, lt := range list.Threads {
			if lt.ID == one.ID && (len(lt.Overlaps) != 1 || lt.Overlaps[0].ThreadID != two.ID) {
				t.Errorf("listed overlaps of %s: %v", one.ID, lt.Overlaps)
			}
		}
		// Archiving one thread clears the other's overlap.
		h.call("PATCH", "/v1/threads/"+two.ID, map[string]any{"archived": true}, 200, nil)
		overlapsOf(h, one.ID)
		overlapsOf(h, two.ID)
		// Unarchived, it overlaps again.
		h.call("PATCH", "/v1/threads/"+two.ID, map[string]any{"archived": false}, 200, nil)
		overlapsOf(h, one.ID, "a.txt↔"+two.ID+" conflict absent")
	})

	t.Run("two worktrees: conflict true, then false", func(t *testing.T) {
		h := h.withT(t)
		lines := "1\n2\n3\n4\n5\n6\n7\n8\n"
		repo := gitRepo(t, map[string]string{"shared.txt": lines, "clean.txt": lines})
		t1, t2 := worktreeThread(h, repo, "Left"), worktreeThread(h, repo, "Right")
		// The same line, changed two ways: the merge would conflict.
		write(h, t1.ID, filepath.Join(t1.Worktree.Path, "shared.txt"), "LEFT\n2\n3\n4\n5\n6\n7\n8\n")
		write(h, t2.ID, filepath.Join(t2.Worktree.Path, "shared.txt"), "RIGHT\n2\n3\n4\n5\n6\n7\n8\n")
		overlapsOf(h, t1.ID, "shared.txt↔"+t2.ID+" conflict true")
		overlapsOf(h, t2.ID, "shared.txt↔"+t1.ID+" conflict true")
		// Different lines of another file: both changed it, it merges.
		write(h, t1.ID, filepath.Join(t1.Worktree.Path, "clean.txt"), "ONE\n2\n3\n4\n5\n6\n7\n8\n")
		write(h, t2.ID, filepath.Join(t2.Worktree.Path, "clean.txt"), "1\n2\n3\n4\n5\n6\n7\nEIGHT\n")
		overlapsOf(h, t2.ID, "clean.txt↔"+t1.ID+" conflict false", "shared.txt↔"+t1.ID+" conflict true")
		overlapsOf(h, t1.ID, "clean.txt↔"+t2.ID+" conflict false", "shared.txt↔"+t2.ID+" conflict true")
		// Discarding one worktree takes it out of the other's overlaps.
		h.call("POST", "/v1/threads/"+t2.ID+"/discard", nil, 200, nil)
		overlapsOf(h, t1.ID)
	})
}
