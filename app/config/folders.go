package config

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// Folders is the config's per-folder section, folders: {<glob>: {…}}
// (API.md, Conventions): the settings of the threads whose folder matches
// the glob, merged most specific last (engine.FolderRule). Globs are kept
// as written; "~" and "~/…" stand for the home folder.
//
// It is read from the YAML itself, not through viper: viper lowercases
// keys and splits them at dots, and globs are case-sensitive paths that
// hold dots.
type Folders map[string]FolderConfig

// FolderConfig is one folder glob's settings.
type FolderConfig struct {
	// AllowedFolders are folders an agent of a matching thread may read,
	// write and run terminals in without asking, besides the thread's
	// own (absolute, or starting with ~/). A more specific glob's list
	// replaces a less specific one's.
	AllowedFolders []string `yaml:"allowedFolders" json:"allowedFolders,omitempty"`
	// MCPServers are MCP servers for threads in matching folders, laid
	// over the top-level and the agent's (mcp.go).
	MCPServers acp.MCPServers `yaml:"mcpServers" json:"mcpServers,omitempty"`
	// Worktree is the default of a new thread's "in a new worktree" for
	// matching folders (issue 19); nil: not set here.
	Worktree *bool `yaml:"worktree" json:"worktree,omitempty"`
	// WorktreeSetup are shell commands run, one after the other, in a new
	// worktree of a matching folder before its thread's agent starts
	// (issue 31: install dependencies, copy .env from the main checkout,
	// named by $SWITCHBOARD_MAIN_CHECKOUT); nil: not set here.
	WorktreeSetup []string `yaml:"worktreeSetup" json:"worktreeSetup,omitempty"`
	// Instructions are the client system prompt of new threads in
	// matching folders, after their agent's; the most specific glob that
	// sets them wins (ADR 0050). nil: not set here.
	Instructions *acp.SystemPrompt `yaml:"instructions" json:"instructions,omitempty"`
}

// foldersType is Folders' reflect type, for skipHook.
var foldersType = reflect.TypeOf(Folders(nil))

// decodeOption is viper's default decode hooks plus one that leaves the
// folders section empty: decodeFolders fills it from the YAML.
var decodeOption = viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
	mapstructure.StringToTimeDurationHookFunc(),
	mapstructure.StringToSliceHookFunc(","),
	func(_ reflect.Type, to reflect.Type, data any) (any, error) {
		if to == foldersType {
			return Folders{}, nil
		}
		if to == mcpType {
			return acp.MCPServers(nil), nil
		}
		if to == pricesType { // budgets.go: decodePrices
			return reflect.Zero(pricesType).Interface(), nil
		}
		if to == optionValuesType {
			return acp.OptionValues(nil), nil
		}
		return data, nil
	},
))

// decodeFolders reads the folders section of data (the config file, nil
// when there is none), keys and values as written, refusing an unknown
// key in a folder's settings.
func decodeFolders(data []byte) (Folders, error) {
	var raw struct {
		Folders map[string]yaml.Node `yaml:"folders"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := make(Folders, len(raw.Folders))
	for glob, node := range raw.Folders {
		var keys map[string]yaml.Node
		if err := node.Decode(&keys); err != nil {
			return nil, fmt.Errorf("line %d: folders.%q must be a map of settings", node.Line, glob)
		}
		for k, v := range keys {
			if k != "allowedFolders" && k != "mcpServers" && k != "worktree" && k != "worktreeSetup" && k != "instructions" {
				return nil, fmt.Errorf("line %d: unknown key folders.%q.%s", v.Line, glob, k)
			}
		}
		var fc FolderConfig
		if err := node.Decode(&fc); err != nil {
			return nil, fmt.Errorf("line %d: folders.%q: %w", node.Line, glob, err)
		}
		if _, set := keys["allowedFolders"]; set && fc.AllowedFolders == nil {
			fc.AllowedFolders = []string{} // "allowedFolders: []" or empty: set, to none
		}
		if _, set := keys["worktreeSetup"]; set && fc.WorktreeSetup == nil {
			fc.WorktreeSetup = []string{} // "worktreeSetup: []": set, to none (a broader glob's does not apply)
		}
		out[glob] = fc
	}
	return out, nil
}

// expandHome returns p with a leading "~" or "~/" replaced by the home
// folder, cleaned when absolute; anything else is returned as is.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return p
		}
		p = home + p[1:]
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return p
}

// validate checks every glob and folder: absolute once ~ is expanded, and
// a valid pattern (engine.CheckFolderGlob).
func (f Folders) validate() error {
	globs := slices.Sorted(maps.Keys(f))
	for _, g := range globs {
		if err := engine.CheckFolderGlob(expandHome(g)); err != nil {
			return fmt.Errorf("folders.%q: %w", g, err)
		}
		for _, d := range f[g].AllowedFolders {
			if !filepath.IsAbs(expandHome(d)) {
				return fmt.Errorf("folders.%q.allowedFolders: %q must be an absolute path (or start with ~/)", g, d)
			}
		}
	}
	return nil
}

// rules is f as the engine uses it: globs and folders with ~ expanded.
func (f Folders) rules() []engine.FolderRule {
	out := make([]engine.FolderRule, 0, len(f))
	for g, fc := range f {
		r := engine.FolderRule{Glob: expandHome(g), MCPServers: fc.MCPServers, Worktree: fc.Worktree, WorktreeSetup: fc.WorktreeSetup, Instructions: fc.Instructions}
		if fc.AllowedFolders != nil {
			r.AllowedFolders = make([]string, len(fc.AllowedFolders))
			for i, d := range fc.AllowedFolders {
				r.AllowedFolders[i] = expandHome(d)
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Glob < out[j].Glob })
	return out
}

// checkEnvNames checks terminals.inheritEnv: variable names, or prefixes
// ending in '*'.
func checkEnvNames(names []string) error {
	for _, n := range names {
		base := strings.TrimSuffix(n, "*")
		if base == "" && n != "*" || strings.ContainsAny(base, "=*\x00 ") {
			return fmt.Errorf("terminals.inheritEnv: %q is not a variable name (or a prefix ending in *)", n)
		}
	}
	return nil
}
