//go:build linux

package systest

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestE2EWorktrees (issue 19) drives worktree threads, merges, discards,
// checkpoints and the Changes view through the real binary, against real
// git repositories made in temp dirs, with the fake agent writing files
// (fs/write_text_file) and running git and rm in terminals.
func TestE2EWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	bins := buildE2E(t)
	defRoot, wtLocation := t.TempDir(), t.TempDir() // folders.<glob>.worktree: true; worktrees.location
	h := newHub(t, bins, hubConfig{
		"permissions": map[string]any{"timeout": "20s"},
		"folders":     map[string]any{defRoot + "/**": map[string]any{"worktree": true}},
		"worktrees":   map[string]any{"location": wtLocation},
	})
	approve := func(apiPermission) any { return map[string]string{"outcome": "approved"} }
	decline := func(apiPermission) any { return map[string]string{"outcome": "declined"} }

	t.Run("parallel worktrees, merge, conflict, discard", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"shared.txt": "one\ntwo\n"})
		writeFile(t, filepath.Join(repo, "notes.txt"), "uncommitted, stays here")
		// The dialog asks before offering a worktree: yes here, no outside git.
		var gf struct {
			Git  bool
			Repo string
		}
		h.call("GET", "/v1/folders/git?path="+url.QueryEscape(repo), nil, 200, &gf)
		if top, _ := filepath.EvalSymlinks(repo); !gf.Git || gf.Repo != top {
			t.Errorf("folders/git of the repository = %+v, want git at %s", gf, repo)
		}
		gf.Git, gf.Repo = true, ""
		h.call("GET", "/v1/folders/git?path="+url.QueryEscape(t.TempDir()), nil, 200, &gf)
		if gf.Git || gf.Repo != "" {
			t.Errorf("folders/git outside git = %+v, want git false", gf)
		}
		h.call("GET", "/v1/folders/git?path=relative/dir", nil, 400, nil)
		h.call("GET", "/v1/folders/git?path="+url.QueryEscape(filepath.Join(repo, "missing")), nil, 400, nil)
		t1, t2 := worktreeThread(h, repo, "First"), worktreeThread(h, repo, "Second")
		w1, w2 := t1.Worktree, t2.Worktree
		if w1.Base != "main" || w1.Path == w2.Path || !strings.HasPrefix(w1.Branch, "switchboard/first-") ||
			w1.Path != filepath.Join(wtLocation, filepath.FromSlash(w1.Branch)) || t1.Cwd != repo || w1.Repo != repo {
			t.Fatalf("worktrees %+v %+v (cwd %s)", w1, w2, t1.Cwd)
		}
		if _, err := os.Stat(filepath.Join(w1.Path, "notes.txt")); err == nil {
			t.Error("the main checkout's uncommitted file is in the worktree")
		}
		// Each agent edits the same file in its own worktree, unasked.
		for _, x := range []struct {
			th   apiWorkThread
			text string
		}{{t1, "ONE"}, {t2, "uno"}} {
			out, perms := confinedTurn(h, x.th.ID, "fs-write "+filepath.Join(x.th.Worktree.Path, "shared.txt")+" "+x.text+"\ntwo\n", decline)
			if out != "fs-write ok" || len(perms) != 0 {
				t.Fatalf("fs-write in the worktree: %q, %d permissions", out, len(perms))
			}
			out, _ = confinedTurn(h, x.th.ID, "terminal git commit -qam "+x.text, approve)
			if !strings.Contains(out, "exit 0") {
				t.Fatalf("git commit in the worktree: %q", out)
			}
		}
		// The main checkout is not the worktree thread's own: writing there asks.
		out, perms := confinedTurn(h, t1.ID, "fs-write "+filepath.Join(repo, "shared.txt")+" hijack", decline)
		if len(perms) != 1 || out == "fs-write ok" {
			t.Errorf("fs-write into the main checkout: %q, %d permissions (want asked and declined)", out, len(perms))
		}
		if got := readFile(t, filepath.Join(repo, "shared.txt")); got != "one\ntwo\n" {
			t.Fatalf("main checkout's shared.txt = %q before any merge", got)
		}
		var got struct{ Thread apiWorkThread }
		h.call("GET", "/v1/threads/"+t1.ID, nil, 200, &got)
		if a := got.Thread.Worktree.Ahead; a == nil || *a != 1 {
			t.Errorf("ahead = %v, want 1", a)
		}
		// The thread list carries the counts too (one rev-list per worktree thread).
		var list struct{ Threads []apiWorkThread }
		h.call("GET", "/v1/threads", nil, 200, &list)
		listed := 0
		for _, lt := range list.Threads {
			if lt.ID == t1.ID {
				listed++
				if a, b := lt.Worktree.Ahead, lt.Worktree.Behind; a == nil || *a != 1 || b == nil || *b != 0 {
					t.Errorf("listed ahead/behind = %v/%v, want 1/0", a, b)
				}
			}
		}
		if listed != 1 {
			t.Errorf("thread %s listed %d times", t1.ID, listed)
		}
		var m struct{ How, Commit string }
		h.call("POST", "/v1/threads/"+t1.ID+"/merge", nil, 200, &m)
		if m.How != "fast-forward" || readFile(t, filepath.Join(repo, "shared.txt")) != "ONE\ntwo\n" {
			t.Errorf("merge 1: %+v, shared.txt %q", m, readFile(t, filepath.Join(repo, "shared.txt")))
		}
		head := git(t, repo, "rev-parse", "HEAD")
		r := h.do("POST", "/v1/threads/"+t2.ID+"/merge", nil)
		var e struct {
			Error struct {
				Code    string
				Details struct {
					Files           []string
					Branch          string
					UnmergedCommits int
				}
			}
		}
		json.Unmarshal(r.body, &e)
		if r.status != 409 || !slices.Equal(e.Error.Details.Files, []string{"shared.txt"}) {
			t.Errorf("merge 2: %s, want 409 naming shared.txt", r)
		}
		if git(t, repo, "rev-parse", "HEAD") != head || readFile(t, filepath.Join(repo, "notes.txt")) != "uncommitted, stays here" {
			t.Error("the conflicting merge changed the main checkout")
		}
		r = h.do("DELETE", "/v1/threads/"+t2.ID, nil)
		json.Unmarshal(r.body, &e)
		if r.status != 409 || e.Error.Details.Branch != w2.Branch || e.Error.Details.UnmergedCommits != 1 {
			t.Fatalf("delete with unmerged commits: %s", r)
		}
		h.call("DELETE", "/v1/threads/"+t2.ID+"?discard=true", nil, 204, nil)
		if _, err := os.Stat(w2.Path); !os.IsNotExist(err) {
			t.Errorf("discarded worktree still there: %v", err)
		}
		if b := git(t, repo, "branch", "--list", w2.Branch); b != "" {
			t.Errorf("discarded branch still there: %q", b)
		}
		// Thread 1 is merged: it deletes without asking, its branch too.
		h.call("DELETE", "/v1/threads/"+t1.ID, nil, 204, nil)
		if b := git(t, repo, "branch", "--list", w1.Branch); b != "" {
			t.Errorf("merged branch still there after delete: %q", b)
		}
	})

	t.Run("delete keeps uncommitted work unless discarded", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a": "1"})
		th := worktreeThread(h, repo, "Dirty")
		writeFile(t, filepath.Join(th.Worktree.Path, "draft.txt"), "not committed")
		// (Keep the branch works whatever the worktree holds: TestE2ELand.)
		if r := h.do("DELETE", "/v1/threads/"+th.ID, nil); r.status != 409 || !strings.Contains(string(r.body), "draft.txt") {
			t.Errorf("DELETE of a dirty worktree: %s, want 409 naming draft.txt", r)
		}
		if readFile(t, filepath.Join(th.Worktree.Path, "draft.txt")) != "not committed" {
			t.Fatal("the refused deletes lost the file")
		}
		h.call("DELETE", "/v1/threads/"+th.ID+"?discard=true", nil, 204, nil)
		if _, err := os.Stat(th.Worktree.Path); !os.IsNotExist(err) {
			t.Error("discarded worktree still there")
		}
	})

	t.Run("discard endpoint", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a": "1"})
		th := worktreeThread(h, repo, "Throwaway")
		var got struct{ Thread apiWorkThread }
		h.call("POST", "/v1/threads/"+th.ID+"/discard", nil, 200, &got)
		if !got.Thread.Worktree.Discarded || got.Thread.Status != "closed" {
			t.Errorf("after discard: %+v", got.Thread)
		}
		if _, err := os.Stat(th.Worktree.Path); !os.IsNotExist(err) {
			t.Error("worktree still there")
		}
		if r := h.do("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo hi"}); r.status != 409 {
			t.Errorf("turn on a discarded thread: %s, want 409", r)
		}
	})

	t.Run("per-folder default and location", func(t *testing.T) {
		h := h.withT(t)
		repo := filepath.Join(defRoot, "proj")
		git(t, "", "init", "-q", "-b", "main", repo)
		git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
		var r struct{ Thread apiWorkThread }
		h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "title": "Default"}, 201, &r)
		if w := r.Thread.Worktree; w.Path == "" || !strings.HasPrefix(w.Path, wtLocation+string(filepath.Separator)) {
			t.Errorf("the folder's default made no worktree in worktrees.location: %+v", w)
		}
		r.Thread = apiWorkThread{}
		h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "worktree": false}, 201, &r)
		if r.Thread.Worktree.Path != "" {
			t.Errorf("worktree: false made one: %+v", r.Thread.Worktree)
		}
		plain := filepath.Join(defRoot, "plain")
		os.MkdirAll(plain, 0o755)
		r.Thread = apiWorkThread{}
		h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": plain}, 201, &r)
		if r.Thread.Worktree.Path != "" {
			t.Errorf("the default made a worktree outside git: %+v", r.Thread.Worktree)
		}
	})

	t.Run("refused folders", func(t *testing.T) {
		h := h.withT(t)
		bare := filepath.Join(t.TempDir(), "b.git")
		git(t, "", "init", "-q", "--bare", bare)
		for dir, want := range map[string]string{bare: "not a working tree", t.TempDir(): "not in a git repository"} {
			r := h.do("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": dir, "worktree": true})
			if r.status != 400 || !strings.Contains(string(r.body), want) {
				t.Errorf("worktree thread in %s: %s, want 400 %q", dir, r, want)
			}
		}
	})

	t.Run("detached HEAD and submodule", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a": "1"})
		git(t, repo, "checkout", "-q", "--detach")
		th := worktreeThread(h, repo, "Detached")
		if th.Worktree.Base != "" || th.Worktree.BaseCommit != git(t, repo, "rev-parse", "HEAD") {
			t.Errorf("detached: %+v", th.Worktree)
		}
		if git(t, repo, "rev-parse", th.Worktree.Branch) != th.Worktree.BaseCommit {
			t.Error("the branch does not start at the detached commit")
		}
		sub := gitRepo(t, map[string]string{"lib.txt": "lib"})
		super := gitRepo(t, map[string]string{"top.txt": "top"})
		git(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "libsub")
		git(t, super, "commit", "-qm", "submodule")
		th = worktreeThread(h, filepath.Join(super, "libsub"), "Sub")
		if th.Worktree.Repo != filepath.Join(super, "libsub") || readFile(t, filepath.Join(th.Worktree.Path, "lib.txt")) != "lib" {
			t.Errorf("submodule worktree %+v", th.Worktree)
		}
	})

	t.Run("revert refuses to lose changes made since the agent's turn", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "start\n", "b.txt": "b\n"})
		th := h.newThread("fake", repo)
		out, _ := confinedTurn(h, th.ID, "fs-write "+filepath.Join(repo, "a.txt")+" agent\n", decline)
		if out != "fs-write ok" {
			t.Fatalf("fs-write: %q", out)
		}
		writeFile(t, filepath.Join(repo, "a.txt"), "agent\nand mine\n") // the user, after the turn
		r := h.do("POST", "/v1/threads/"+th.ID+"/changes/revert", map[string]any{"path": "a.txt"})
		var e struct {
			Error struct {
				Details struct {
					Files  []string
					Reason string
				}
			}
		}
		json.Unmarshal(r.body, &e)
		if r.status != 409 || !slices.Equal(e.Error.Details.Files, []string{"a.txt"}) || e.Error.Details.Reason != "CHANGED_SINCE" {
			t.Fatalf("revert of a file changed since: %s", r)
		}
		if got := readFile(t, filepath.Join(repo, "a.txt")); got != "agent\nand mine\n" {
			t.Fatalf("the refused revert changed the file: %q", got)
		}
		var res struct{ Files []string }
		h.call("POST", "/v1/threads/"+th.ID+"/changes/revert", map[string]any{"path": "a.txt", "force": true}, 200, &res)
		if got := readFile(t, filepath.Join(repo, "a.txt")); got != "start\n" || !slices.Equal(res.Files, []string{"a.txt"}) {
			t.Errorf("forced revert: a.txt %q, files %v", got, res.Files)
		}
	})

	t.Run("checkpoints restore byte for byte", func(t *testing.T) {
		h := h.withT(t)
		bin := "crlf\r\nnul\x00end"
		repo := gitRepo(t, map[string]string{"a.txt": bin, "gone.txt": "to be deleted", ".gitignore": "*.log\n"})
		git(t, repo, "config", "commit.gpgSign", "true")
		git(t, repo, "config", "gpg.program", "/nonexistent/gpg")
		writeFile(t, filepath.Join(repo, "untracked.txt"), "before")
		th := h.newThread("fake", repo)
		turn := h.startTurn(th.ID, "fs-write "+filepath.Join(repo, "a.txt")+" changed")
		h.waitTurn(th.ID, turn.ID, 60*time.Second)
		confinedTurn(h, th.ID, "fs-write "+filepath.Join(repo, "new", "n.txt")+" brand new", decline)
		confinedTurn(h, th.ID, "fs-write "+filepath.Join(repo, "untracked.txt")+" after", decline)
		confinedTurn(h, th.ID, "terminal rm gone.txt", approve)
		writeFile(t, filepath.Join(repo, "debug.log"), "ignored, untouched")
		var cps struct {
			Checkpoints []struct{ TurnID, Commit string }
		}
		h.call("GET", "/v1/threads/"+th.ID+"/checkpoints", nil, 200, &cps)
		if len(cps.Checkpoints) != 4 || cps.Checkpoints[0].TurnID != turn.ID {
			t.Fatalf("checkpoints %+v (gpgSign must not stop them)", cps)
		}
		var ch struct {
			Source string
			Files  []struct{ Path, Status, Diff string }
		}
		h.call("GET", "/v1/threads/"+th.ID+"/changes", nil, 200, &ch)
		var names []string
		for _, f := range ch.Files {
			names = append(names, f.Status+" "+f.Path)
		}
		want := []string{"modified a.txt", "deleted gone.txt", "added new/n.txt", "modified untracked.txt"}
		if ch.Source != "git" || !slices.Equal(names, want) {
			t.Errorf("changes %v (%s), want %v", names, ch.Source, want)
		}
		gitDiff := git(t, repo, "diff", "--no-color", "-M", cps.Checkpoints[0].Commit, "--", "a.txt")
		for _, f := range ch.Files {
			if f.Path == "a.txt" && strings.TrimSpace(f.Diff) != gitDiff {
				t.Errorf("a.txt diff:\n%s\nwant (git diff):\n%s", f.Diff, gitDiff)
			}
		}
		var one struct{ Files []struct{ Path string } }
		h.call("GET", "/v1/threads/"+th.ID+"/changes?turn="+turn.ID, nil, 200, &one)
		if len(one.Files) != 1 || one.Files[0].Path != "a.txt" {
			t.Errorf("first turn's changes %+v, want a.txt only", one.Files)
		}
		var since struct{ Files []struct{ Path string } }
		h.call("GET", "/v1/threads/"+th.ID+"/changes?since="+turn.ID, nil, 200, &since)
		if len(since.Files) != 4 {
			t.Errorf("changes since the first turn %+v, want the 4 files a restore undoes", since.Files)
		}
		var res struct{ Files []string }
		h.call("POST", "/v1/threads/"+th.ID+"/checkpoints/"+turn.ID+"/restore", nil, 200, &res)
		slices.Sort(res.Files)
		if want := []string{"a.txt", "gone.txt", "new/n.txt", "untracked.txt"}; !slices.Equal(res.Files, want) {
			t.Errorf("restored %v, want %v", res.Files, want)
		}
		for name, want := range map[string]string{"a.txt": bin, "gone.txt": "to be deleted", "untracked.txt": "before", "debug.log": "ignored, untouched"} {
			if got := readFile(t, filepath.Join(repo, name)); got != want {
				t.Errorf("%s = %q after restore, want %q", name, got, want)
			}
		}
		if _, err := os.Stat(filepath.Join(repo, "new", "n.txt")); !os.IsNotExist(err) {
			t.Error("the new file survived the restore")
		}
		if s := git(t, repo, "status", "--porcelain"); s != "?? untracked.txt" {
			t.Errorf("git status after restore: %q", s)
		}
		if !hasEvent(h, th.ID, "checkpoint_restored") {
			t.Error("no checkpoint_restored event")
		}
		h.call("DELETE", "/v1/threads/"+th.ID, nil, 204, nil)
		if refs := git(t, repo, "for-each-ref", "refs/switchboard/"); refs != "" {
			t.Errorf("checkpoints of a deleted thread: %q", refs)
		}
	})
}

// apiWorkThread is a thread with its worktree.
type apiWorkThread struct {
	apiThread
	Worktree struct {
		Path, Branch, Base, BaseCommit, Top, Repo string
		Ahead, Behind                             *int
		Discarded                                 bool
	} `json:"worktree"`
}

func worktreeThread(h *hubProc, cwd, title string) apiWorkThread {
	h.t.Helper()
	var r struct{ Thread apiWorkThread }
	h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": cwd, "title": title, "worktree": true}, 201, &r)
	if r.Thread.Worktree.Path == "" {
		h.t.Fatalf("thread without worktree: %+v", r.Thread)
	}
	return r.Thread
}

// gitRepo makes a repository with one commit of files (and a local
// identity, for commits made in the agent's terminals).
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", "-b", "main", dir)
	git(t, dir, "config", "user.name", "Test")
	git(t, dir, "config", "user.email", "test@example.com")
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "init")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// hasEvent reports whether the thread's event log (replayed from the
// start) has an event of type typ within 30 s.
func hasEvent(h *hubProc, threadID, typ string) bool {
	h.t.Helper()
	s := h.mustSSE("GET", "/v1/threads/"+threadID+"/events?since=0", nil)
	defer s.close()
	s.until(30*time.Second, func(m sseMsg) bool { return m.event == typ })
	return true
}
