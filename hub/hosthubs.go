package hub

import "context"

// HostHubs is what the window reads of each host's hub besides its
// threads (issue 30, API.md Conventions "Hosts"): a folder picker on it
// and its agents, at GET /v1/hosts/{name}/folders and /agents. The host
// "local" is this machine. A host not known is NOT_FOUND; one whose link
// is down HostUnreachable.
type HostHubs interface {
	// HostFolders lists the folders in path on host: path "" is the
	// home folder there; a relative path is INVALID_ARGUMENT, a missing
	// one NOT_FOUND.
	HostFolders(ctx context.Context, host, path string) (FolderList, error)
	// HostAgents lists host's agents as its GET /v1/agents does
	// (another host's only: the API answers "local" itself).
	HostAgents(ctx context.Context, host string) ([]Agent, error)
}

// FolderList is one folder's subfolders, for a folder picker: hidden ones
// (a name starting with ".") are left out, the others sorted by name, at
// most MaxFolderList (Truncated then).
type FolderList struct {
	Path      string   `json:"path"`
	Parent    string   `json:"parent,omitempty"` // "" at the root
	Folders   []Folder `json:"folders"`
	Truncated bool     `json:"truncated,omitempty"`
}

// Folder is one entry of a FolderList.
type Folder struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// MaxFolderList bounds a FolderList.
const MaxFolderList = 1000

// ErrNoHostHubs is the NOT_FOUND of a hub without hosts.
var ErrNoHostHubs = Errorf(CodeNotFound, "hosts are not available")
