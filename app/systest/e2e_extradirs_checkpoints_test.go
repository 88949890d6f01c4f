//go:build linux

package systest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestE2EExtraDirsCheckpoints (issue 32, ADR 0051): a thread's extra
// folder that is a git repository is covered by checkpoints like its
// main folder. One turn writes in both (a terminal the user approves);
// Changes lists the main folder's files, then the extra folder's,
// relative to it, and says once that the extra folder outside git has no
// checkpoints; restoring the turn's checkpoint brings both back byte for
// byte; after a second turn, a manual edit in the extra folder makes a
// revert of everything refuse without touching any folder.
func TestE2EExtraDirsCheckpoints(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	h := newHub(t, buildE2E(t), nil)
	binary := "\x00\x01bytes\xff\r\nkept as they are\n"
	main := gitRepo(t, map[string]string{"a.txt": "main one\n"})
	extra := gitRepo(t, map[string]string{"lib/b.bin": binary, "keep.txt": "untouched\n"})
	plain := t.TempDir() // not a repository
	script := filepath.Join(t.TempDir(), "write.sh")
	writeFile(t, script, "printf 'main two\\n' > "+filepath.Join(main, "a.txt")+
		"\nprintf 'rewritten\\n' > "+filepath.Join(extra, "lib", "b.bin")+
		"\nprintf 'new\\n' > "+filepath.Join(extra, "new.txt")+"\n")

	var created struct{ Thread apiThread }
	h.call("POST", "/v1/threads", map[string]any{"agent": "fake", "cwd": main, "additionalDirectories": []string{extra, plain}}, 201, &created)
	id := created.Thread.ID
	turn := func() string {
		t.Helper()
		tu := h.startTurn(id, "terminal sh "+script)
		p := h.waitPermission(tu.ID, 30*time.Second)
		h.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, nil)
		if got := h.waitTurn(id, tu.ID, 60*time.Second); got.Status != "completed" {
			t.Fatalf("the writing turn: %+v", got)
		}
		return tu.ID
	}
	first := turn()
	if got := readFile(t, filepath.Join(extra, "new.txt")); got != "new\n" {
		t.Fatalf("the turn did not write in the extra folder: %q", got)
	}

	type changes struct {
		Source string
		Files  []struct{ Path, Status string }
		// Folders are the extra folders'.
		Folders []struct {
			Folder, Source string
			Files          []struct{ Path, Status string }
		}
	}
	paths := func(fs []struct{ Path, Status string }) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Status+" "+f.Path)
		}
		slices.Sort(out)
		return out
	}
	for _, q := range []string{"", "?turn=" + first, "?since=" + first} {
		var ch changes
		h.call("GET", "/v1/threads/"+id+"/changes"+q, nil, 200, &ch)
		if ch.Source != "git" || !slices.Equal(paths(ch.Files), []string{"modified a.txt"}) {
			t.Errorf("changes%s: main folder %s %v, want git [modified a.txt]", q, ch.Source, paths(ch.Files))
		}
		if len(ch.Folders) != 2 {
			t.Fatalf("changes%s: folders %+v, want the extra repository then the plain folder", q, ch.Folders)
		}
		if f := ch.Folders[0]; f.Folder != extra || f.Source != "git" || !slices.Equal(paths(f.Files), []string{"added new.txt", "modified lib/b.bin"}) {
			t.Errorf("changes%s: extra folder %s %s %v, want git [added new.txt, modified lib/b.bin] relative to it", q, f.Folder, f.Source, paths(f.Files))
		}
		if f := ch.Folders[1]; f.Folder != plain || f.Source != "none" || len(f.Files) != 0 {
			t.Errorf("changes%s: plain folder %+v, want source none and no files", q, f)
		}
	}

	var res struct {
		Files   []string
		Folders []struct {
			Folder string
			Files  []string
		}
	}
	h.call("POST", "/v1/threads/"+id+"/checkpoints/"+first+"/restore", nil, 200, &res)
	if !slices.Equal(res.Files, []string{"a.txt"}) || len(res.Folders) != 1 || res.Folders[0].Folder != extra || len(res.Folders[0].Files) != 2 {
		t.Errorf("restore: %+v, want a.txt and the extra folder's two files", res)
	}
	if got := readFile(t, filepath.Join(main, "a.txt")); got != "main one\n" {
		t.Errorf("restored main a.txt %q", got)
	}
	if got := readFile(t, filepath.Join(extra, "lib", "b.bin")); got != binary {
		t.Errorf("restored extra lib/b.bin %q, want %q byte for byte", got, binary)
	}
	if _, err := os.Stat(filepath.Join(extra, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the file the turn created in the extra folder is still there: %v", err)
	}

	// A second turn, then the user edits the extra folder by hand: a
	// revert of everything refuses and changes nothing anywhere.
	turn()
	writeFile(t, filepath.Join(extra, "lib", "b.bin"), "edited by hand\n")
	r := h.do("POST", "/v1/threads/"+id+"/changes/revert", map[string]any{})
	if r.status != 409 || !strings.Contains(string(r.body), "CHANGED_SINCE") || !strings.Contains(string(r.body), filepath.Join(extra, "lib", "b.bin")) {
		t.Fatalf("revert after a manual edit in the extra folder: %s, want 409 CHANGED_SINCE naming it", r)
	}
	if got := readFile(t, filepath.Join(main, "a.txt")); got != "main two\n" {
		t.Errorf("the refused revert changed main a.txt: %q", got)
	}
	if got := readFile(t, filepath.Join(extra, "lib", "b.bin")); got != "edited by hand\n" {
		t.Errorf("the refused revert lost the manual edit: %q", got)
	}
	// One file of the extra folder the user did not touch reverts.
	h.call("POST", "/v1/threads/"+id+"/changes/revert", map[string]any{"folder": extra, "path": "new.txt"}, 200, &res)
	if len(res.Folders) != 1 || !slices.Equal(res.Folders[0].Files, []string{"new.txt"}) || len(res.Files) != 0 {
		t.Errorf("revert of the extra folder's new.txt: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(extra, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt not reverted: %v", err)
	}
	if r := h.do("POST", "/v1/threads/"+id+"/changes/revert", map[string]any{"folder": t.TempDir(), "path": "x"}); r.status != 400 {
		t.Errorf("revert in a folder that is not the thread's: %s, want 400", r)
	}
}
