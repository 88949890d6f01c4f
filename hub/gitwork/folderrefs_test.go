package gitwork

import (
	"context"
	"path/filepath"
	"testing"
)

// Two extra folders of one thread in one repository keep their snapshots
// apart (FolderRefs, ADR 0051): each folder's checkpoint holds its own
// files only, is listed under its own refs and not under the main
// folder's, and a restore of one folder leaves the other alone. Pruning
// a thread removes its folder refs and no other thread's.
func TestFolderRefsKeepFoldersApart(t *testing.T) {
	dir := newRepo(t, map[string]string{"a/x.txt": "a one", "b/y.txt": "b one"})
	ctx := context.Background()
	ra, rb := open(t, filepath.Join(dir, "a")), open(t, filepath.Join(dir, "b"))
	fa, fb := FolderRefs(filepath.Join(dir, "a")), FolderRefs(filepath.Join(dir, "b"))
	if fa == fb || fa == MainRefs {
		t.Fatalf("folder refs collide: %+v %+v", fa, fb)
	}
	for _, c := range []struct {
		r    Repo
		refs Refs
		th   string
	}{{ra, fa, "th_1"}, {rb, fb, "th_1"}, {ra, fa, "th_2"}} {
		if _, err := Checkpoint(ctx, c.r, c.refs.Checkpoint(c.th, "tu_1"), CheckpointMessage(1)); err != nil {
			t.Fatal(err)
		}
	}
	if cps, err := fa.Checkpoints(ctx, dir, "th_1"); err != nil || len(cps) != 1 || cps[0].Turn != "tu_1" {
		t.Errorf("folder a's checkpoints %+v, %v: want tu_1", cps, err)
	}
	if cps, err := Checkpoints(ctx, dir, "th_1"); err != nil || len(cps) != 0 {
		t.Errorf("the main folder's checkpoints list a folder's: %+v, %v", cps, err)
	}
	write(t, dir, "a/x.txt", "a two")
	write(t, dir, "b/y.txt", "b two")
	files, err := Restore(ctx, ra, fa.Checkpoint("th_1", "tu_1"))
	if err != nil || len(files) != 1 || files[0] != "a/x.txt" {
		t.Fatalf("restore of folder a: %v, %v", files, err)
	}
	if got, _ := read(t, dir, "a/x.txt"); got != "a one" {
		t.Errorf("a/x.txt %q after the restore", got)
	}
	if got, _ := read(t, dir, "b/y.txt"); got != "b two" {
		t.Errorf("folder a's restore touched folder b: %q", got)
	}
	if err := PruneCheckpoints(ctx, dir, "th_1"); err != nil {
		t.Fatal(err)
	}
	if RefCommit(ctx, dir, fa.Checkpoint("th_1", "tu_1")) != "" || RefCommit(ctx, dir, fb.Checkpoint("th_1", "tu_1")) != "" {
		t.Error("th_1's folder checkpoints survived its prune")
	}
	if RefCommit(ctx, dir, fa.Checkpoint("th_2", "tu_1")) == "" {
		t.Error("pruning th_1 removed th_2's folder checkpoint")
	}
}
