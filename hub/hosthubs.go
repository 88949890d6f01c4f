package hub

import "context"

// HostHubs is what the window reads of each host's hub besides its
// threads (issue 30, API.md Conventions "Hosts"): a folder picker on it,
// its agents, and its policy (settings, remembered rules, usage and
// budgets), at GET /v1/hosts/{name}/folders, /agents, /settings, /rules,
// /usage. The host "local" is this machine. A host not known is
// NOT_FOUND; one whose link is down HostUnreachable.
type HostHubs interface {
	// HostFolders lists the folders in path on host: path "" is the
	// home folder there; a relative path is INVALID_ARGUMENT, a missing
	// one NOT_FOUND.
	HostFolders(ctx context.Context, host, path string) (FolderList, error)
	// HostAgents lists host's agents as its GET /v1/agents does
	// (another host's only: the API answers "local" itself).
	HostAgents(ctx context.Context, host string) ([]Agent, error)
	// HostPolicy is host's own settings, rules, usage and budgets, each
	// call answered by its hub over the link (another host's only: the
	// API answers "local" itself). NOT_FOUND for a host not known,
	// HostUnreachable while its link is down (and for a call whose link
	// fails midway).
	HostPolicy(ctx context.Context, host string) (HostPolicy, error)
}

// HostPolicy is a hub's policy as another hub reaches it (ADR 0048):
// each hub applies its own rules and budgets to the agents it runs, so a
// host's are read and changed on that host, never copied here, and a
// host's usage never counts against this hub's budgets. The same shapes
// as this hub's own (GET|PATCH /v1/settings, GET /v1/rules, DELETE
// /v1/rules/{id}, GET /v1/usage, POST /v1/budgets/override). Ids of the
// host's threads and permissions are in their local form (<id>@<host>)
// both ways; a rule's own id is the host's.
type HostPolicy interface {
	SettingsService
	UsageService
	// ListRules and DeleteRule are Service's.
	ListRules(ctx context.Context, c Caller) ([]RememberedRule, error)
	DeleteRule(ctx context.Context, c Caller, id string) error
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
