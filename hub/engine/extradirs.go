package engine

import (
	"path/filepath"
	"slices"

	"github.com/switchboard-hub/switchboard/hub"
)

// A thread's extra folders (CreateThreadRequest.AdditionalDirectories,
// ADR 0047): its agent's sessions get them as ACP additionalDirectories
// where the agent advertises them (acp.SessionDirs), and allowedFolders
// counts them as the thread's own, so fs/* requests in them are served
// without asking. Every path is resolved before it is compared
// (resolvePath), so a link inside an extra folder that leads out of it,
// or a ".." that climbs out, is outside like any other path; protected
// paths stay refused inside them.

// extraDirsFor is the config's extra folders for a new thread in folder
// cwd (folders.<glob>.additionalDirectories, the most specific matching
// rule that sets them; ADR 0051).
func (c Config) extraDirsFor(cwd string) []string {
	var best *FolderRule
	for i := range c.Folders {
		r := &c.Folders[i]
		if r.AdditionalDirectories == nil || !MatchFolder(r.Glob, cwd) {
			continue
		}
		if best == nil || moreSpecific(r.Glob, best.Glob) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return best.AdditionalDirectories
}

// defaultExtraDirs are the configured extra folders of a new thread in
// cwd (extraDirsFor) that checkExtraDirs accepts, each on its own: one
// that is missing or refused is left out (and logged), never failing
// the thread.
func (e *Engine) defaultExtraDirs(cwd string) []string {
	var out []string
	for _, d := range e.config().extraDirsFor(cwd) {
		ok, err := e.checkExtraDirs(cwd, []string{d})
		if err != nil {
			e.log.Warn("hub: a configured extra folder is left out", "cwd", cwd, "folder", d, "err", err)
			continue
		}
		for _, o := range ok {
			if !slices.Contains(out, o) && len(out) < hub.MaxAdditionalDirectories {
				out = append(out, o)
			}
		}
	}
	return out
}

// checkExtraDirs returns dirs cleaned and without repeats (cwd itself
// dropped): each an absolute path of an existing folder (checkCwd), not
// the file system's root (that would be every file) and not within a
// protected path (the hub never serves those); at most
// hub.MaxAdditionalDirectories. Else INVALID_ARGUMENT naming the folder.
func (e *Engine) checkExtraDirs(cwd string, dirs []string) ([]string, error) {
	if len(dirs) > hub.MaxAdditionalDirectories {
		return nil, hub.Errorf(hub.CodeInvalidArgument, "at most %d additional directories", hub.MaxAdditionalDirectories)
	}
	var out []string
	for _, d := range dirs {
		clean, err := checkCwd(d)
		if err != nil {
			return nil, hub.Errorf(hub.CodeInvalidArgument, "additionalDirectories: %q is not an absolute path of an existing folder", d)
		}
		r, err := resolvePath(clean)
		if err != nil {
			return nil, hub.Errorf(hub.CodeInvalidArgument, "additionalDirectories: %s: %v", clean, err)
		}
		if r == filepath.VolumeName(r)+string(filepath.Separator) {
			return nil, hub.Errorf(hub.CodeInvalidArgument, "additionalDirectories: %s is the whole file system: give the folders the agent needs", clean)
		}
		if e.protectedPath(r) {
			return nil, hub.Errorf(hub.CodeInvalidArgument, "additionalDirectories: %s is a folder Switchboard never lets an agent use (its data or config)", clean)
		}
		if clean != cwd && !slices.Contains(out, clean) {
			out = append(out, clean)
		}
	}
	return out, nil
}
