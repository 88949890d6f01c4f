package engine

import (
	"context"
	"os"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/gitwork"
)

// GitFolder implements hub.WorkService: whether path is in a git working
// tree (where CreateThreadRequest.Worktree can make a worktree), and the
// extra folders a new thread there gets by default (defaultExtraDirs). It reads
// nothing but git's answer; a bare repository is not a working tree.
func (e *Engine) GitFolder(ctx context.Context, c hub.Caller, path string) (hub.GitFolder, error) {
	if err := checkCaller(c); err != nil {
		return hub.GitFolder{}, err
	}
	if path == "" || !filepath.IsAbs(path) {
		return hub.GitFolder{}, &hub.Error{Code: hub.CodeInvalidArgument, Message: "path must be an absolute path",
			Details: map[string]any{"field": "path"}}
	}
	dir := filepath.Clean(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return hub.GitFolder{}, &hub.Error{Code: hub.CodeInvalidArgument, Message: "path " + dir + " is not an existing folder",
			Details: map[string]any{"field": "path"}}
	}
	extra := e.defaultExtraDirs(dir) // extradirs.go: what New thread pre-fills
	r, err := gitwork.Open(ctx, dir)
	if err != nil {
		// Not a repository, a bare one, or no git at all: no worktree here.
		return hub.GitFolder{AdditionalDirectories: extra}, nil
	}
	return hub.GitFolder{Git: true, Repo: r.Top, AdditionalDirectories: extra}, nil
}
