//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// An extra folder that is a subfolder of another repository is covered
// by its own checkpoints, its paths named relative to it; an extra
// folder inside the main folder is the main folder's (no entry of its
// own); a revert of one file of the extra folder takes the folder and
// the path as Changes named them, and leaves the main folder alone.
func TestExtraFolderCheckpointsInASubfolder(t *testing.T) {
	h := newHarness(t, nil)
	gitInit(t, h.cwd, map[string]string{"a.txt": "main"})
	other := t.TempDir()
	gitInit(t, other, map[string]string{"top.txt": "top"})
	sub := filepath.Join(other, "sub")
	inner := filepath.Join(h.cwd, "inner")
	for _, d := range []string{sub, inner} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	th, err := h.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, AdditionalDirectories: []string{inner, sub}})
	if err != nil {
		t.Fatal(err)
	}
	w := h.watch(th)
	h.run(th, w, "fs-write "+filepath.Join(sub, "c.txt")+" written")
	h.run(th, w, "fs-write "+filepath.Join(h.cwd, "a.txt")+" changed")
	ch, err := h.e.Changes(ctx, alice, th.ID, hub.ChangesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 1 || ch.Files[0].Path != "a.txt" {
		t.Errorf("main folder's changes %+v, want a.txt", ch.Files)
	}
	if len(ch.Folders) != 1 || ch.Folders[0].Folder != sub {
		t.Fatalf("folders %+v, want only %s (inner is the main folder's)", ch.Folders, sub)
	}
	if f := ch.Folders[0].Files; len(f) != 1 || f[0].Path != "c.txt" || f[0].Status != "added" {
		t.Errorf("the extra folder's changes %+v, want c.txt added, relative to the folder", f)
	}
	res, err := h.e.RevertChanges(ctx, alice, th.ID, hub.RevertRequest{Folder: sub, Path: "c.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 || len(res.Folders) != 1 || len(res.Folders[0].Files) != 1 || res.Folders[0].Files[0] != "c.txt" {
		t.Errorf("revert %+v, want the extra folder's c.txt only", res)
	}
	if _, err := os.Stat(filepath.Join(sub, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt survived the revert: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.cwd, "a.txt")); string(b) != "changed" {
		t.Errorf("the extra folder's revert touched the main folder: a.txt %q", b)
	}
	if _, err := h.e.RevertChanges(ctx, alice, th.ID, hub.RevertRequest{Folder: inner, Path: "x"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("revert naming a folder checkpoints do not cover separately: %v, want INVALID_ARGUMENT", err)
	}
}

// folders.<glob>.additionalDirectories (ADR 0051): a thread created
// without extra folders gets its folder's configured ones that exist (a
// missing one is left out, never failing the thread); an explicit empty
// list gives none; an explicit list replaces them; GitFolder answers
// them, for New thread to pre-fill.
func TestFolderDefaultExtraDirs(t *testing.T) {
	shared, missing := t.TempDir(), filepath.Join(t.TempDir(), "gone")
	h := newHarness(t, nil)
	c := h.e.Config()
	c.Folders = []engine.FolderRule{{Glob: h.cwd + "/**", AdditionalDirectories: []string{shared, missing}}}
	h.e.SetConfig(c)
	ctx := context.Background()
	create := func(dirs []string) []string {
		t.Helper()
		th, err := h.e.CreateThread(ctx, alice, hub.CreateThreadRequest{Agent: "fake", Cwd: h.cwd, AdditionalDirectories: dirs})
		if err != nil {
			t.Fatal(err)
		}
		return th.AdditionalDirectories
	}
	if got := create(nil); len(got) != 1 || got[0] != shared {
		t.Errorf("no extra folders asked: %v, want the configured %s (the missing one left out)", got, shared)
	}
	if got := create([]string{}); len(got) != 0 {
		t.Errorf("an empty list: %v, want none", got)
	}
	other := t.TempDir()
	if got := create([]string{other}); len(got) != 1 || got[0] != other {
		t.Errorf("an explicit list: %v, want [%s] only", got, other)
	}
	gf, err := h.e.GitFolder(ctx, alice, h.cwd)
	if err != nil || len(gf.AdditionalDirectories) != 1 || gf.AdditionalDirectories[0] != shared {
		t.Errorf("GitFolder %+v, %v: want the configured extra folder", gf, err)
	}
	if gf, _ := h.e.GitFolder(ctx, alice, other); len(gf.AdditionalDirectories) != 0 {
		t.Errorf("GitFolder of a folder no rule matches: %+v", gf)
	}
}
