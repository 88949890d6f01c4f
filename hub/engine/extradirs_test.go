//go:build unix

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// A thread's extra folders are served as its own, and nothing else is: a
// path outside all of them, a link in one that leads out, and a ".." that
// climbs out are outside (refused with no turn to ask in); a protected
// path inside one stays protected.
func TestExtraDirsConfinement(t *testing.T) {
	cwd, extra, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p string) {
		t.Helper()
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(extra, "in.txt"))
	write(filepath.Join(outside, "out.txt"))
	if err := os.Symlink(outside, filepath.Join(extra, "lnk")); err != nil {
		t.Fatal(err)
	}
	// The data dir inside an extra folder: still never served.
	prot := filepath.Join(extra, "data")
	if err := os.Mkdir(prot, 0o700); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(prot, "token"))
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: DefaultConfig(), protected: protectedRoots([]string{prot})}
	c := &threadClient{e: e, rt: &threadRT{}, thread: hub.Thread{ID: "th", Cwd: cwd, AdditionalDirectories: []string{extra}}}
	ctx := context.Background()
	reason := func(err error) string {
		var ae *acp.Error
		if !errors.As(err, &ae) {
			return ""
		}
		var d struct{ Reason string }
		_ = json.Unmarshal(ae.Data, &d)
		return d.Reason
	}
	if r, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: filepath.Join(extra, "in.txt")}); err != nil || r.Content != "x" {
		t.Errorf("inside the extra folder: %+v, %v", r, err)
	}
	if _, err := c.WriteTextFile(ctx, acp.WriteTextFileRequest{Path: filepath.Join(extra, "new.txt"), Content: "y"}); err != nil {
		t.Errorf("write inside the extra folder: %v", err)
	}
	for what, p := range map[string]string{
		"outside every folder":  filepath.Join(outside, "out.txt"),
		"a link out":            filepath.Join(extra, "lnk", "out.txt"),
		"a .. out":              filepath.Join(extra, "..", filepath.Base(outside), "out.txt"),
		"a .. out, not cleaned": extra + "/../" + filepath.Base(outside) + "/out.txt",
	} {
		if _, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: p}); reason(err) != reasonDenied {
			t.Errorf("%s (%s): %v, want %s", what, p, err, reasonDenied)
		}
	}
	if _, err := c.WriteTextFile(ctx, acp.WriteTextFileRequest{Path: filepath.Join(extra, "lnk", "planted.txt")}); reason(err) != reasonDenied {
		t.Errorf("write through a link out: %v, want %s", err, reasonDenied)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.txt")); err == nil {
		t.Error("written outside through the link")
	}
	if _, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: filepath.Join(prot, "token")}); reason(err) != reasonProtected {
		t.Errorf("protected inside the extra folder: %v, want %s", err, reasonProtected)
	}
	// The same thread without the extra folder: not served.
	c.thread.AdditionalDirectories = nil
	if _, err := c.ReadTextFile(ctx, acp.ReadTextFileRequest{Path: filepath.Join(extra, "in.txt")}); reason(err) != reasonDenied {
		t.Errorf("without the extra folder: %v, want %s", err, reasonDenied)
	}
}

// What a thread may name as extra folders, and the clear error for the rest.
func TestCheckExtraDirs(t *testing.T) {
	cwd, a, data := t.TempDir(), t.TempDir(), t.TempDir()
	file := filepath.Join(a, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: DefaultConfig(), protected: protectedRoots([]string{data})}
	got, err := e.checkExtraDirs(cwd, []string{a + "/", a, cwd})
	if err != nil || len(got) != 1 || got[0] != a {
		t.Errorf("a folder given twice and the thread's own: %v, %v; want [%s]", got, err, a)
	}
	many := make([]string, hub.MaxAdditionalDirectories+1)
	for i := range many {
		many[i] = a
	}
	for what, tt := range map[string]struct {
		dirs []string
		want string
	}{
		"relative":         {[]string{"rel"}, `"rel" is not an absolute path of an existing folder`},
		"missing":          {[]string{filepath.Join(a, "nope")}, "is not an absolute path of an existing folder"},
		"a file":           {[]string{file}, "is not an absolute path of an existing folder"},
		"the root":         {[]string{"/"}, "is the whole file system"},
		"a protected one":  {[]string{data}, "never lets an agent use"},
		"inside protected": {[]string{mkdir(t, filepath.Join(data, "sub"))}, "never lets an agent use"},
		"too many":         {many, "at most 16"},
	} {
		_, err := e.checkExtraDirs(cwd, tt.dirs)
		var he *hub.Error
		if !errors.As(err, &he) || he.Code != hub.CodeInvalidArgument || !strings.Contains(he.Message, tt.want) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT saying %q", what, err, tt.want)
		}
	}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}
