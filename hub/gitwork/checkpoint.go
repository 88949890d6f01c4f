package gitwork

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CheckpointRefPrefix is where checkpoints live:
// refs/switchboard/checkpoints/<thread>/<turn>.
const CheckpointRefPrefix = "refs/switchboard/checkpoints/"

// hubIdentity is the author and committer of checkpoint commits: they are
// the hub's snapshots, never on a branch, and must not fail for a user
// without user.name.
var hubIdentity = []string{
	"GIT_AUTHOR_NAME=Switchboard", "GIT_AUTHOR_EMAIL=switchboard@localhost",
	"GIT_COMMITTER_NAME=Switchboard", "GIT_COMMITTER_EMAIL=switchboard@localhost",
}

// Snapshot writes the tree of r's folder as it is now — tracked files and
// untracked files that are not ignored, under r's prefix; the rest of the
// tree as the index has it — into the object store and returns its id.
// It works in a space (space.go) on a copy of the real index, which it
// never changes: no filter, hook or monitor the repository names runs.
func Snapshot(ctx context.Context, r Repo) (string, error) {
	sp, err := r.space(ctx, true)
	if err != nil {
		return "", err
	}
	defer sp.close()
	return snapshotIn(ctx, sp, r)
}

// snapshotIn is Snapshot in sp, a space of r holding r's index (which it
// changes).
func snapshotIn(ctx context.Context, sp *space, r Repo) (string, error) {
	if _, err := run(ctx, cmd{dir: r.Top, sp: sp, args: []string{"add", "-A", "--ignore-errors", "--", r.Pathspec()}}); err != nil && exitCode(err) != 1 {
		return "", err
	}
	out, err := run(ctx, cmd{dir: r.Top, sp: sp, args: []string{"write-tree"}})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Checkpoint snapshots r's folder and records it as a commit (parent: the
// HEAD Open saw, when there is one; never signed, no hooks) on ref,
// touching neither the index, the branch nor the stash. It returns the
// commit.
func Checkpoint(ctx context.Context, r Repo, ref, message string) (string, error) {
	sp, err := r.space(ctx, true)
	if err != nil {
		return "", err
	}
	defer sp.close()
	tree, err := snapshotIn(ctx, sp, r)
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", "--no-gpg-sign", tree, "-m", message}
	if r.Head != "" {
		args = append(args, "-p", r.Head)
	}
	out, err := run(ctx, cmd{dir: r.Top, sp: sp, env: hubIdentity, args: args})
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(out))
	if _, err := run(ctx, cmd{dir: r.Top, env: []string{"GIT_DIR=" + r.gitDir}, args: []string{"update-ref", ref, commit}}); err != nil {
		return "", err
	}
	return commit, nil
}

// TurnEndRefPrefix is where the snapshots taken when a turn ends live:
// refs/switchboard/turn-ends/<thread>/<turn>.
const TurnEndRefPrefix = "refs/switchboard/turn-ends/"

// FolderRefPrefix is where an extra folder's snapshots live (ADR 0051):
// refs/switchboard/dirs/<key>/checkpoints/<thread>/<turn> and
// refs/switchboard/dirs/<key>/turn-ends/<thread>/<turn>, in the extra
// folder's own repository, <key> naming the folder (FolderRefs).
const FolderRefPrefix = "refs/switchboard/dirs/"

// Refs names where one folder's snapshots live in its repository: a
// thread's main folder's under refs/switchboard/ (MainRefs), each extra
// folder's under a namespace of its own (FolderRefs), so two folders of
// one thread in one repository never share a ref.
type Refs struct {
	root string // "refs/switchboard/" or FolderRefPrefix + key + "/"
}

// MainRefs are the refs of a thread's main folder.
var MainRefs = Refs{root: "refs/switchboard/"}

// FolderRefs are the refs of a thread's extra folder (an absolute, clean
// path): keyed by the first 16 hex digits of its path's SHA-256.
func FolderRefs(folder string) Refs {
	sum := sha256.Sum256([]byte(folder))
	return Refs{root: FolderRefPrefix + hex.EncodeToString(sum[:8]) + "/"}
}

// Checkpoint is the ref of a thread's checkpoint before a turn.
func (s Refs) Checkpoint(thread, turn string) string {
	return s.root + "checkpoints/" + thread + "/" + turn
}

// TurnEnd is the ref of a thread's snapshot at the end of a turn.
func (s Refs) TurnEnd(thread, turn string) string {
	return s.root + "turn-ends/" + thread + "/" + turn
}

// Checkpoints lists a thread's checkpoints in these refs, oldest first.
func (s Refs) Checkpoints(ctx context.Context, dir, thread string) ([]CheckpointInfo, error) {
	return listSnapshots(ctx, dir, s.root+"checkpoints/", thread)
}

// TurnEnds lists a thread's turn-end snapshots in these refs, oldest
// first.
func (s Refs) TurnEnds(ctx context.Context, dir, thread string) ([]CheckpointInfo, error) {
	return listSnapshots(ctx, dir, s.root+"turn-ends/", thread)
}

// TurnEndRef is the ref of a thread's snapshot at the end of a turn
// (MainRefs).
func TurnEndRef(thread, turn string) string {
	return MainRefs.TurnEnd(thread, turn)
}

// CheckpointRef is the ref of a thread's checkpoint before a turn
// (MainRefs).
func CheckpointRef(thread, turn string) string {
	return MainRefs.Checkpoint(thread, turn)
}

// RefCommit returns the commit ref points at ("" when it does not exist).
func RefCommit(ctx context.Context, dir, ref string) string {
	out, err := git(ctx, dir, "rev-parse", "--verify", "-q", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// PruneCheckpoints deletes every checkpoint and turn-end ref of a thread
// in dir's repository: its main folder's and any extra folder's
// (FolderRefs).
func PruneCheckpoints(ctx context.Context, dir, thread string) error {
	out, err := git(ctx, dir, "for-each-ref", "--format=%(refname)", CheckpointRefPrefix+thread+"/", TurnEndRefPrefix+thread+"/", FolderRefPrefix)
	if err != nil {
		return err
	}
	var stdin strings.Builder
	for _, ref := range strings.Fields(out) {
		if rest, ok := strings.CutPrefix(ref, FolderRefPrefix); ok {
			_, rest, _ = strings.Cut(rest, "/") // past the folder's key
			if !strings.HasPrefix(rest, "checkpoints/"+thread+"/") && !strings.HasPrefix(rest, "turn-ends/"+thread+"/") {
				continue
			}
		}
		fmt.Fprintf(&stdin, "delete %s\n", ref)
	}
	if stdin.Len() == 0 {
		return nil
	}
	_, err = run(ctx, cmd{dir: dir, stdin: []byte(stdin.String()), args: []string{"update-ref", "--stdin"}})
	return err
}

// Restore brings r's folder back to the snapshot commit (or tree) from:
// every file under r's prefix that differs from it — changed, deleted, or
// created since (tracked, or untracked and not ignored) — is written back
// byte for byte or removed; ignored files are left alone, and the index,
// HEAD and stash are untouched. It runs in a space: files are written
// under r.Top whatever the repository's config says, through no filter.
// It returns the files it changed.
func Restore(ctx context.Context, r Repo, from string) ([]string, error) {
	return restore(ctx, r, from, nil)
}

// restore restores the files that differ between the tree-ish from and
// r's folder now (only those in only, when it is not nil) to their state
// in from.
func restore(ctx context.Context, r Repo, from string, only map[string]bool) ([]string, error) {
	ids, err := r.resolve(ctx, from)
	if err != nil {
		return nil, err
	}
	from = ids[0]
	sp, err := r.space(ctx, true)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	now, err := snapshotIn(ctx, sp, r)
	if err != nil {
		return nil, err
	}
	changes, err := nameStatus(ctx, sp, r, from, now)
	if err != nil {
		return nil, err
	}
	var write, removed, done []string
	for _, c := range changes {
		if only != nil && !only[c.Path] {
			continue
		}
		done = append(done, c.Path)
		if c.Status == "A" {
			removed = append(removed, c.Path)
		} else {
			write = append(write, c.Path)
		}
	}
	for _, p := range removed {
		full := filepath.Join(r.Top, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			return done, err
		}
		removeEmptyParents(r.Top, filepath.Dir(full))
	}
	if len(write) == 0 {
		return done, nil
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(sp.dir, "restore-index")}
	if _, err := run(ctx, cmd{dir: r.Top, sp: sp, env: env, args: []string{"read-tree", from}}); err != nil {
		return done, err
	}
	for _, p := range write { // a folder where a file was must go first
		full := filepath.Join(r.Top, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			if err := os.RemoveAll(full); err != nil {
				return done, err
			}
		}
	}
	stdin := strings.Join(write, "\x00") + "\x00"
	if _, err := run(ctx, cmd{dir: r.Top, sp: sp, env: env, stdin: []byte(stdin), args: []string{"checkout-index", "-f", "-z", "--stdin"}}); err != nil {
		return done, err
	}
	return done, nil
}

// removeEmptyParents removes dir and its parents up to (not including) top
// while they are empty.
func removeEmptyParents(top, dir string) {
	for dir != top && strings.HasPrefix(dir, top+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// CheckpointInfo is one stored checkpoint.
type CheckpointInfo struct {
	Turn, Commit, Ref string
	At                int64 // when it was taken (Unix nanoseconds, from its message)
}

// CheckpointMessage is the message of a checkpoint commit taken at nanos.
func CheckpointMessage(nanos int64) string {
	return fmt.Sprintf("switchboard checkpoint %d", nanos)
}

// Checkpoints lists a thread's checkpoints (MainRefs), oldest first.
func Checkpoints(ctx context.Context, dir, thread string) ([]CheckpointInfo, error) {
	return MainRefs.Checkpoints(ctx, dir, thread)
}

// TurnEnds lists a thread's turn-end snapshots (MainRefs), oldest first.
func TurnEnds(ctx context.Context, dir, thread string) ([]CheckpointInfo, error) {
	return MainRefs.TurnEnds(ctx, dir, thread)
}

func listSnapshots(ctx context.Context, dir, prefix, thread string) ([]CheckpointInfo, error) {
	out, err := git(ctx, dir, "for-each-ref", "--format=%(refname) %(objectname) %(contents:subject)", prefix+thread+"/")
	if err != nil {
		return nil, err
	}
	var cps []CheckpointInfo
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		cp := CheckpointInfo{Ref: f[0], Commit: f[1], Turn: strings.TrimPrefix(f[0], prefix+thread+"/")}
		if len(f) == 5 {
			fmt.Sscan(f[4], &cp.At)
		}
		cps = append(cps, cp)
	}
	sort.SliceStable(cps, func(i, j int) bool { return cps[i].At < cps[j].At })
	return cps, nil
}
