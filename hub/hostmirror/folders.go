package hostmirror

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

var _ hub.HostHubs = (*Hosts)(nil)

// HostFolders implements hub.HostHubs: this machine's folders for
// "local", else the host's own answer for its "local" (over the link).
func (hs *Hosts) HostFolders(ctx context.Context, host, path string) (hub.FolderList, error) {
	if host == hub.LocalHost {
		return ListFolders(path)
	}
	rem, err := hs.Remote(host)
	if err != nil {
		return hub.FolderList{}, err
	}
	l, err := rem.HostFolders(ctx, hub.LocalHost, path)
	return l, fail(host, err)
}

// HostAgents implements hub.HostHubs.
func (hs *Hosts) HostAgents(ctx context.Context, host string) ([]hub.Agent, error) {
	rem, err := hs.Remote(host)
	if err != nil {
		return nil, err
	}
	a, err := rem.ListAgents(ctx)
	return a, fail(host, err)
}

// ListFolders lists the subfolders of path on this machine (hub.FolderList;
// "" is the home folder).
func ListFolders(path string) (hub.FolderList, error) {
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return hub.FolderList{}, hub.Errorf(hub.CodeNotFound, "no home folder: %v", err)
		}
		path = home
	}
	if !filepath.IsAbs(path) {
		return hub.FolderList{}, hub.Errorf(hub.CodeInvalidArgument, "path %q is not absolute", path)
	}
	path = filepath.Clean(path)
	entries, err := os.ReadDir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return hub.FolderList{}, hub.Errorf(hub.CodeNotFound, "no folder %s", path)
	case errors.Is(err, fs.ErrPermission):
		return hub.FolderList{}, hub.Errorf(hub.CodeForbidden, "folder %s cannot be read", path)
	case err != nil:
		return hub.FolderList{}, hub.Errorf(hub.CodeInvalidArgument, "folder %s: %v", path, err)
	}
	out := hub.FolderList{Path: path, Folders: []hub.Folder{}}
	if parent := filepath.Dir(path); parent != path {
		out.Parent = parent
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !isDir(path, e) {
			continue
		}
		if len(out.Folders) == hub.MaxFolderList {
			out.Truncated = true
			break
		}
		out.Folders = append(out.Folders, hub.Folder{Name: e.Name(), Path: filepath.Join(path, e.Name())})
	}
	sort.Slice(out.Folders, func(i, j int) bool { return out.Folders[i].Name < out.Folders[j].Name })
	return out, nil
}

// isDir reports whether e is a folder, following a symlink.
func isDir(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}
