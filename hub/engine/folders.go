package engine

import (
	"strings"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

// FolderRule is one entry of the config's folders section as the engine
// uses it: the settings of the threads whose folder matches Glob.
type FolderRule struct {
	// Glob is an absolute folder pattern (~ already expanded): path
	// elements matched one by one as filepath.Match does ("*", "?",
	// "[…]" within one element), and "**" for any number of elements,
	// none included. "/home/me/work/**" matches /home/me/work and every
	// folder under it; "/home/me/work/*" its direct subfolders.
	Glob string
	// AllowedFolders are folders an agent of a matching thread may use
	// without asking, besides the thread's own (absolute; nil: not set
	// here).
	AllowedFolders []string
	// MCPServers are MCP servers for matching threads, by name (nil: none
	// set here); see mcp.go.
	MCPServers acp.MCPServers
	// Worktree is the default of CreateThreadRequest.Worktree for threads
	// in matching folders (nil: not set here; worktree.go).
	Worktree *bool
	// WorktreeSetup are the shell commands run in a new worktree of a
	// matching folder before its agent starts (nil: not set here;
	// setup.go).
	WorktreeSetup []string
	// Instructions are the client system prompt of new threads in
	// matching folders (nil: not set here; instructions.go).
	Instructions *acp.SystemPrompt
}

// CheckFolderGlob reports whether glob is a valid folder pattern
// (policy.CheckFolderGlob: the rules' folders globs are the same).
func CheckFolderGlob(glob string) error { return policy.CheckFolderGlob(glob) }

// MatchFolder reports whether the folder dir matches glob (see
// FolderRule.Glob; policy.MatchFolder).
func MatchFolder(glob, dir string) bool { return policy.MatchFolder(glob, dir) }

// moreSpecific reports whether glob a is more specific than b: more
// elements that are not "**", then fewer wildcard characters, then
// longer; equal ones by their text, so the order is total.
func moreSpecific(a, b string) bool {
	if ea, eb := literalElems(a), literalElems(b); ea != eb {
		return ea > eb
	}
	if wa, wb := wildcards(a), wildcards(b); wa != wb {
		return wa < wb
	}
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// literalElems counts glob's elements that are not "**".
func literalElems(glob string) int {
	n := 0
	for _, el := range splitPath(glob) {
		if el != "**" {
			n++
		}
	}
	return n
}

// wildcards counts glob's wildcard characters.
func wildcards(glob string) int {
	return strings.Count(glob, "*") + strings.Count(glob, "?") + strings.Count(glob, "[")
}

// allowedFor returns the allowed folders the config gives a thread in
// folder cwd: those of the most specific matching rule that sets
// allowedFolders (folders are merged most specific last, and a list is
// replaced whole, so a narrower folder can allow less).
func (c Config) allowedFor(cwd string) []string {
	var best *FolderRule
	for i := range c.Folders {
		r := &c.Folders[i]
		if r.AllowedFolders == nil || !MatchFolder(r.Glob, cwd) {
			continue
		}
		if best == nil || moreSpecific(r.Glob, best.Glob) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return best.AllowedFolders
}
