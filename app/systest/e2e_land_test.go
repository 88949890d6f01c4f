//go:build linux

package systest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// landError is a 409's error body as Commit, Push, Delete and a new
// thread on a branch answer it.
type landError struct {
	Error struct {
		Code    string
		Message string
		Details struct {
			Reason           string
			Output           string
			Files            []string
			Path             string
			UncommittedFiles []string
			Commits          []struct{ Commit, Subject string }
		}
	}
}

func (h *hubProc) landRefusal(method, path string, body any, reason string) landError {
	h.t.Helper()
	r := h.do(method, path, body)
	var e landError
	json.Unmarshal(r.body, &e)
	if r.status != 409 || e.Error.Details.Reason != reason {
		h.t.Fatalf("%s %s: %s, want 409 %s", method, path, r, reason)
	}
	return e
}

// TestE2ELand (issue 31, "Land the work" and "Worktrees outlive threads")
// drives Commit, Merge, Push, Delete and threads on existing branches
// through the real binary against real git repositories in temp dirs:
// the fake agent writes files (fs/write_text_file) and commits nothing,
// as agents do.
func TestE2ELand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	bins := buildE2E(t) // before HOME moves: the build uses the Go caches under it
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	gnupg := signingHome(t)
	h := newHub(t, bins, hubConfig{"permissions": map[string]any{"timeout": "20s"}, "worktrees": map[string]any{"location": t.TempDir()}})
	decline := func(apiPermission) any { return map[string]string{"outcome": "declined"} }
	edit := func(h *hubProc, th apiWorkThread, rel, text string) {
		h.t.Helper()
		if out, _ := confinedTurn(h, th.ID, "fs-write "+filepath.Join(th.Worktree.Path, rel)+" "+text, decline); out != "fs-write ok" {
			h.t.Fatalf("fs-write %s: %q", rel, out)
		}
	}

	t.Run("an agent's uncommitted edit merges into main", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n", ".gitignore": "*.log\n"})
		th := worktreeThread(h, repo, "Fix the greeting")
		edit(h, th, "a.txt", "new\n")
		edit(h, th, "added.txt", "brand new\n")
		edit(h, th, "debug.log", "ignored\n")
		// The list carries the dirty count without asking git per read.
		var list struct{ Threads []apiLandThread }
		h.call("GET", "/v1/threads", nil, 200, &list)
		i := slices.IndexFunc(list.Threads, func(x apiLandThread) bool { return x.ID == th.ID })
		if i < 0 || list.Threads[i].Worktree.Dirty == nil || *list.Threads[i].Worktree.Dirty != 2 {
			t.Fatalf("listed thread %+v, want dirty 2 (a.txt, added.txt; debug.log ignored)", list.Threads)
		}
		var sug struct {
			Message string
			Files   []string
		}
		h.call("GET", "/v1/threads/"+th.ID+"/commit", nil, 200, &sug)
		slices.Sort(sug.Files)
		if !slices.Equal(sug.Files, []string{"a.txt", "added.txt"}) || !strings.HasPrefix(sug.Message, "Fix the greeting\n\n- fs-write ") {
			t.Errorf("suggestion %+v", sug)
		}
		var m struct{ How, Commit, Committed string }
		h.call("POST", "/v1/threads/"+th.ID+"/merge", nil, 200, &m)
		if m.Committed == "" || m.How != "fast-forward" {
			t.Errorf("merge: %+v, want a commit first, then a fast-forward", m)
		}
		if got := git(t, repo, "show", "main:a.txt"); got != "new" {
			t.Errorf("main:a.txt = %q after the merge", got)
		}
		if got := git(t, repo, "show", "main:added.txt"); got != "brand new" {
			t.Errorf("main:added.txt = %q", got)
		}
		if files := git(t, repo, "show", "--name-only", "--format=", m.Committed); files != "a.txt\nadded.txt" {
			t.Errorf("the commit holds %q, want a.txt and added.txt (debug.log is ignored)", files)
		}
		if who := git(t, repo, "log", "-1", "--format=%an <%ae>|%s", m.Committed); who != "Test <test@example.com>|Fix the greeting" {
			t.Errorf("commit author and subject %q, want the repository's identity and the thread's title", who)
		}
		var got struct{ Thread apiLandThread }
		h.call("GET", "/v1/threads/"+th.ID, nil, 200, &got)
		if w := got.Thread.Worktree; w.Merged == nil || !*w.Merged || w.Dirty == nil || *w.Dirty != 0 {
			t.Errorf("after the merge: %+v, want merged and clean", w)
		}
		h.landRefusal("POST", "/v1/threads/"+th.ID+"/commit", map[string]any{}, "NOTHING_TO_COMMIT")
	})

	t.Run("a failing pre-commit hook changes nothing", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n"})
		writeFile(t, filepath.Join(repo, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho 'lint: a.txt has a tab' >&2\nexit 1\n")
		os.Chmod(filepath.Join(repo, ".git", "hooks", "pre-commit"), 0o755)
		th := worktreeThread(h, repo, "Hooked")
		edit(h, th, "a.txt", "new\n")
		tip := git(t, repo, "rev-parse", th.Worktree.Branch)
		index, _ := os.ReadFile(filepath.Join(repo, ".git", "worktrees", filepath.Base(th.Worktree.Top), "index"))
		e := h.landRefusal("POST", "/v1/threads/"+th.ID+"/commit", map[string]string{"message": "Try"}, "HOOK_FAILED")
		if !strings.Contains(e.Error.Details.Output, "lint: a.txt has a tab") {
			t.Errorf("hook output not shown: %+v", e.Error)
		}
		after, _ := os.ReadFile(filepath.Join(repo, ".git", "worktrees", filepath.Base(th.Worktree.Top), "index"))
		if git(t, repo, "rev-parse", th.Worktree.Branch) != tip || string(after) != string(index) || readFile(t, filepath.Join(th.Worktree.Path, "a.txt")) != "new\n" {
			t.Error("the refused commit changed the branch, the index or the file")
		}
	})

	t.Run("hooks the thread changed run only once confirmed", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n"})
		git(t, repo, "config", "core.hooksPath", ".githooks")
		th := worktreeThread(h, repo, "Sneaky")
		marker := filepath.Join(t.TempDir(), "ran")
		edit(h, th, ".githooks/pre-commit", "#!/bin/sh\ntouch "+marker+"\n")
		os.Chmod(filepath.Join(th.Worktree.Top, ".githooks", "pre-commit"), 0o755)
		e := h.landRefusal("POST", "/v1/threads/"+th.ID+"/commit", map[string]any{}, "HOOKS_CHANGED")
		if !slices.Equal(e.Error.Details.Files, []string{".githooks/pre-commit"}) {
			t.Errorf("HOOKS_CHANGED names %v", e.Error.Details.Files)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the changed hook ran before the user confirmed")
		}
		h.call("POST", "/v1/threads/"+th.ID+"/commit", map[string]any{"confirm": true}, 200, nil)
		if _, err := os.Stat(marker); err != nil {
			t.Error("the confirmed commit did not run the hook")
		}
	})

	t.Run("signing", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n"})
		git(t, repo, "config", "commit.gpgSign", "true")
		git(t, repo, "config", "user.signingKey", "nobody-has-this-key@example.invalid")
		th := worktreeThread(h, repo, "Signed")
		edit(h, th, "a.txt", "new\n")
		e := h.landRefusal("POST", "/v1/threads/"+th.ID+"/commit", map[string]any{}, "SIGNING_FAILED")
		if !strings.Contains(e.Error.Message, "user.signingKey") {
			t.Errorf("the refusal does not say what to do: %q", e.Error.Message)
		}
		if gnupg == "" {
			t.Log("gpg could not make a test key: the signed commit is not tried")
			return
		}
		git(t, repo, "config", "user.signingKey", "test@example.com")
		var c struct{ Commit string }
		h.call("POST", "/v1/threads/"+th.ID+"/commit", map[string]any{}, 200, &c)
		if sig := git(t, repo, "log", "-1", "--format=%G?", c.Commit); sig != "G" && sig != "U" {
			t.Errorf("commit signature status %q, want signed", sig)
		}
	})

	t.Run("push to a bare remote, and a rejected push", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n"})
		h.landRefusal("POST", "/v1/threads/"+worktreeThread(h, repo, "No remote").ID+"/push", nil, "NO_REMOTE")
		bare := filepath.Join(t.TempDir(), "remote.git")
		git(t, "", "init", "-q", "--bare", bare)
		git(t, repo, "remote", "add", "origin", bare)
		th := worktreeThread(h, repo, "Pushed")
		edit(h, th, "a.txt", "new\n")
		h.call("POST", "/v1/threads/"+th.ID+"/commit", map[string]string{"message": "Pushed work"}, 200, nil)
		var p struct{ Remote, Branch, PullRequestURL string }
		h.call("POST", "/v1/threads/"+th.ID+"/push", nil, 200, &p)
		if p.Remote != "origin" || p.PullRequestURL != "" || git(t, bare, "rev-parse", th.Worktree.Branch) != git(t, repo, "rev-parse", th.Worktree.Branch) {
			t.Errorf("push: %+v (no forge: no pull request page)", p)
		}
		// Someone else pushes to the branch: ours is behind, never forced.
		other := filepath.Join(t.TempDir(), "other")
		git(t, "", "clone", "-q", "-b", th.Worktree.Branch, bare, other)
		writeFile(t, filepath.Join(other, "b.txt"), "theirs")
		git(t, other, "add", "b.txt")
		git(t, other, "commit", "-qm", "theirs")
		git(t, other, "push", "-q", "origin", th.Worktree.Branch)
		theirs := git(t, bare, "rev-parse", th.Worktree.Branch)
		edit(h, th, "a.txt", "newer\n")
		h.call("POST", "/v1/threads/"+th.ID+"/commit", map[string]string{"message": "More"}, 200, nil)
		e := h.landRefusal("POST", "/v1/threads/"+th.ID+"/push", nil, "PUSH_REJECTED")
		if !strings.Contains(e.Error.Details.Output, "rejected") || git(t, bare, "rev-parse", th.Worktree.Branch) != theirs {
			t.Errorf("rejected push: %+v; the remote's branch must stay theirs", e.Error)
		}
		// A GitHub remote (pushing to the bare one) gives the compare page.
		git(t, repo, "remote", "set-url", "origin", "git@github.com:acme/app.git")
		git(t, repo, "remote", "set-url", "--push", "origin", bare)
		th2 := worktreeThread(h, repo, "Forge")
		h.call("POST", "/v1/threads/"+th2.ID+"/push", nil, 200, &p)
		if want := "https://github.com/acme/app/compare/main..." + th2.Worktree.Branch + "?expand=1"; p.PullRequestURL != want {
			t.Errorf("pull request page %q, want %q", p.PullRequestURL, want)
		}
	})

	t.Run("archive keeps the worktree; delete of dirty work asks; keep branch works", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n"})
		th := worktreeThread(h, repo, "Keep me")
		edit(h, th, "a.txt", "draft\n")
		for _, a := range []bool{true, false} {
			h.call("PATCH", "/v1/threads/"+th.ID, map[string]bool{"archived": a}, 200, nil)
			if readFile(t, filepath.Join(th.Worktree.Path, "a.txt")) != "draft\n" || git(t, repo, "branch", "--list", th.Worktree.Branch) == "" {
				t.Fatalf("archived=%v lost the worktree or its branch", a)
			}
		}
		h.call("POST", "/v1/threads/"+th.ID+"/commit", map[string]string{"message": "One commit"}, 200, nil)
		edit(h, th, "a.txt", "draft 2\n")
		e := h.landRefusal("DELETE", "/v1/threads/"+th.ID, nil, "UNCOMMITTED")
		if !slices.Equal(e.Error.Details.UncommittedFiles, []string{"a.txt"}) || len(e.Error.Details.Commits) != 1 || e.Error.Details.Commits[0].Subject != "One commit" ||
			!strings.Contains(e.Error.Message, "keep the branch") {
			t.Errorf("delete of dirty work: %+v, want a.txt and the commit named, and what to do", e.Error)
		}
		h.call("DELETE", "/v1/threads/"+th.ID+"?keepBranch=true", nil, 204, nil)
		if readFile(t, filepath.Join(th.Worktree.Path, "a.txt")) != "draft 2\n" || git(t, repo, "log", "-1", "--format=%s", th.Worktree.Branch) != "One commit" {
			t.Error("keep branch lost the uncommitted file or the commit")
		}
	})

	t.Run("a thread on an existing branch or worktree", func(t *testing.T) {
		h := h.withT(t)
		repo := gitRepo(t, map[string]string{"a.txt": "old\n"})
		git(t, repo, "branch", "feature")
		var r struct{ Thread apiLandThread }
		h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "title": "Continue", "worktree": map[string]string{"branch": "feature"}}, 201, &r)
		w := r.Thread.Worktree
		if w.Branch != "feature" || w.Base != "main" || readFile(t, filepath.Join(w.Path, "a.txt")) != "old\n" {
			t.Fatalf("thread on feature: %+v", w)
		}
		e := h.landRefusal("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "worktree": map[string]string{"branch": "feature"}}, "BRANCH_IN_USE")
		if top, _ := filepath.EvalSymlinks(w.Top); e.Error.Details.Path != top && e.Error.Details.Path != w.Top {
			t.Errorf("BRANCH_IN_USE path %q, want %q", e.Error.Details.Path, w.Top)
		}
		h.landRefusal("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "worktree": map[string]string{"branch": "main"}}, "BRANCH_IN_USE")
		// A second agent on the first one's worktree shares it; deleting it leaves the worktree.
		var r2 struct{ Thread apiLandThread }
		h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "title": "Second", "worktree": map[string]string{"path": w.Top}}, 201, &r2)
		if w2 := r2.Thread.Worktree; w2.Branch != "feature" || !w2.Adopted {
			t.Fatalf("thread on the worktree: %+v", w2)
		}
		h.call("DELETE", "/v1/threads/"+r2.Thread.ID, nil, 204, nil)
		if _, err := os.Stat(filepath.Join(w.Top, "a.txt")); err != nil || git(t, repo, "branch", "--list", "feature") == "" {
			t.Error("deleting the sharing thread removed the worktree or its branch")
		}
		if r := h.do("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "worktree": map[string]string{"branch": "nope"}}); r.status != 400 {
			t.Errorf("unknown branch: %s, want 400", r)
		}
	})
}

// apiLandThread is a worktree thread with what issue 31 adds.
type apiLandThread struct {
	apiThread
	Worktree struct {
		Path, Branch, Base, Top, PullRequestURL string
		Ahead, Behind, Dirty                    *int
		Merged                                  *bool
		Adopted                                 bool
	} `json:"worktree"`
}

// signingHome makes a GnuPG home with a test signing key for
// test@example.com (no passphrase) and points GNUPGHOME at it; "" when
// gpg is missing or cannot make the key.
func signingHome(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		return ""
	}
	dir, err := os.MkdirTemp("", "gpg") // short: gpg-agent's socket path has a length limit
	if err != nil {
		return ""
	}
	os.Chmod(dir, 0o700)
	t.Cleanup(func() {
		c := exec.Command("gpgconf", "--kill", "gpg-agent")
		c.Env = append(os.Environ(), "GNUPGHOME="+dir)
		c.Run()
		os.RemoveAll(dir)
	})
	c := exec.Command("gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", "Test <test@example.com>", "ed25519", "sign", "never")
	c.Env = append(os.Environ(), "GNUPGHOME="+dir)
	if out, err := c.CombinedOutput(); err != nil {
		t.Logf("gpg --quick-gen-key: %v\n%s", err, out)
		return ""
	}
	t.Setenv("GNUPGHOME", dir)
	return dir
}

// TestE2EWorktreeSetup (issue 31): folders.<glob>.worktreeSetup runs in a
// new worktree before the agent starts — success, failure, cancel — and
// the thread is usable whatever its end.
func TestE2EWorktreeSetup(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	bins := buildE2E(t) // before HOME moves: the build uses the Go caches under it
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	h := newHub(t, bins, hubConfig{
		"worktrees": map[string]any{"location": t.TempDir()},
		"folders": map[string]any{
			root + "/ok/**":   map[string]any{"worktree": true, "worktreeSetup": []string{"echo installing; echo hello > setup.txt", `cp "$SWITCHBOARD_MAIN_CHECKOUT/.env" .`}},
			root + "/fail/**": map[string]any{"worktree": true, "worktreeSetup": []string{"echo broken >&2; exit 3", "touch never.txt"}},
			root + "/slow/**": map[string]any{"worktree": true, "worktreeSetup": []string{"sleep 30"}},
		},
	})
	repoAt := func(name string) string {
		dir := filepath.Join(root, name)
		git(t, "", "init", "-q", "-b", "main", dir)
		writeFile(t, filepath.Join(dir, ".gitignore"), ".env\n")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-qm", "init")
		writeFile(t, filepath.Join(dir, ".env"), "SECRET=local\n")
		return dir
	}
	type setup struct {
		Status, Output string
		ExitCode       *int
	}
	var th struct {
		Thread struct {
			apiThread
			Worktree struct {
				Path  string
				Setup *setup
			}
		}
	}
	create := func(h *hubProc, repo string) {
		h.t.Helper()
		h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": repo, "title": "Setup"}, 201, &th)
		if th.Thread.Worktree.Setup == nil || th.Thread.Worktree.Setup.Status == "" {
			h.t.Fatalf("a new worktree of a folder with worktreeSetup has no setup: %+v", th.Thread.Worktree)
		}
	}
	ended := func(h *hubProc, want string) setup {
		h.t.Helper()
		var s setup
		if !waitFor(60*time.Second, func() bool {
			h.call("GET", "/v1/threads/"+th.Thread.ID, nil, 200, &th)
			s = *th.Thread.Worktree.Setup
			return s.Status != "running"
		}) || s.Status != want {
			h.t.Fatalf("setup %+v, want %s", s, want)
		}
		return s
	}
	usable := func(h *hubProc) {
		h.t.Helper()
		if out, _ := confinedTurn(h, th.Thread.ID, "fs-write "+filepath.Join(th.Thread.Worktree.Path, "after.txt")+" ok", nil); out != "fs-write ok" {
			h.t.Errorf("a turn after the setup: %q", out)
		}
	}

	t.Run("success", func(t *testing.T) {
		h := h.withT(t)
		create(h, repoAt("ok"))
		s := ended(h, "done")
		if !strings.Contains(s.Output, "$ echo installing; echo hello > setup.txt\ninstalling\n") {
			t.Errorf("setup output %q", s.Output)
		}
		if readFile(t, filepath.Join(th.Thread.Worktree.Path, "setup.txt")) != "hello\n" || readFile(t, filepath.Join(th.Thread.Worktree.Path, ".env")) != "SECRET=local\n" {
			t.Error("the setup's commands did not run in the worktree")
		}
		usable(h)
	})
	t.Run("failure", func(t *testing.T) {
		h := h.withT(t)
		create(h, repoAt("fail"))
		s := ended(h, "failed")
		if s.ExitCode == nil || *s.ExitCode != 3 || !strings.Contains(s.Output, "broken") {
			t.Errorf("failed setup %+v, want exit 3 and its output", s)
		}
		if _, err := os.Stat(filepath.Join(th.Thread.Worktree.Path, "never.txt")); err == nil {
			t.Error("a command after the failed one ran")
		}
		usable(h)
	})
	t.Run("cancel", func(t *testing.T) {
		h := h.withT(t)
		create(h, repoAt("slow"))
		h.call("POST", "/v1/threads/"+th.Thread.ID+"/setup/cancel", nil, 200, &th)
		if s := th.Thread.Worktree.Setup; s.Status != "cancelled" {
			t.Errorf("after cancel: %+v", s)
		}
		h.call("POST", "/v1/threads/"+th.Thread.ID+"/setup/cancel", nil, 409, nil)
		usable(h)
	})
	// The hub killed while a setup runs: after the restart nothing runs
	// it, and the thread says it did not finish (not "running" for ever).
	t.Run("hub killed", func(t *testing.T) {
		h := h.withT(t)
		create(h, repoAt("slow/killed")) // a repository of its own, under slow's glob
		if s := th.Thread.Worktree.Setup; s == nil || s.Status != "running" {
			t.Fatalf("the slow setup is not running: %+v", s)
		}
		h.kill9()
		h.start()
		s := ended(h, "failed")
		if !strings.Contains(s.Output, "stopped while the setup ran") {
			t.Errorf("a setup the hub stopped during: %+v", s)
		}
		usable(h)
	})
}
