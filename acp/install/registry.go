package install

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
)

// The ACP registry (the protocol's public agent index, registry.json:
// {version, agents: [{id, name, version, description, distribution: {npx:
// {package, args, env} | uvx: {…} | binary: {<platform>: {archive, cmd,
// args}}}}]}): read from a URL, cached in Dir/registry.json, refreshed at
// most once per LatestEvery; offline, the cache however old.

// RegistryAgent is one agent of the registry.
type RegistryAgent struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	// Icon is the agent's logo, an image URL (icons.go fetches it).
	Icon         string `json:"icon"`
	Distribution struct {
		NPX    *registryPackage            `json:"npx"`
		UVX    *registryPackage            `json:"uvx"`
		Binary map[string]registryBinaryOS `json:"binary"`
	} `json:"distribution"`
}

type registryPackage struct {
	Package string            `json:"package"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type registryBinaryOS struct {
	Archive string   `json:"archive"`
	Cmd     string   `json:"cmd"`
	Args    []string `json:"args"`
}

type registryFile struct {
	Agents []RegistryAgent `json:"agents"`
}

// ACPRegistry reads the registry at url: the cached copy when it is younger
// than LatestEvery, else a fresh one (then cached), else — offline, or a
// broken answer — the cached copy however old; nil without either. The
// error says why no fresh copy was read (nil when the cache was fresh).
//
// The cache belongs to one URL (Dir/registry.src names it): a copy of
// another registry counts as none.
func (in *Installer) ACPRegistry(ctx context.Context, url string) ([]RegistryAgent, error) {
	cache := filepath.Join(in.Dir, "registry.json")
	cached, fi := in.CachedRegistry(url)
	if !fi.IsZero() && in.now().Sub(fi) < LatestEvery {
		return cached, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return cached, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return cached, fmt.Errorf("the ACP registry is unreachable: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return cached, fmt.Errorf("the ACP registry answered %s", resp.Status)
	}
	var f registryFile
	if err := json.Unmarshal(body, &f); err != nil {
		return cached, fmt.Errorf("the ACP registry's answer is not a registry: %w", err)
	}
	_ = os.MkdirAll(in.Dir, 0o700)
	writeAtomic(filepath.Join(in.Dir, "registry.src"), []byte(url+"\n"))
	writeAtomic(cache, body)
	return f.Agents, nil
}

// CachedRegistry is the cached copy of the registry at url, never asking
// the network: its agents and when it was fetched; nil and the zero time
// without one (or with a copy of another URL's registry).
func (in *Installer) CachedRegistry(url string) ([]RegistryAgent, time.Time) {
	if src, err := os.ReadFile(filepath.Join(in.Dir, "registry.src")); err == nil && strings.TrimSpace(string(src)) != url {
		return nil, time.Time{}
	}
	agents, fi := readRegistry(filepath.Join(in.Dir, "registry.json"))
	if fi == nil {
		return nil, time.Time{}
	}
	return agents, fi.ModTime()
}

func readRegistry(path string) ([]RegistryAgent, os.FileInfo) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil
	}
	var f registryFile
	if json.Unmarshal(b, &f) != nil {
		return nil, nil
	}
	return f.Agents, fi
}

// RegistrySpecs turns registry agents into catalogue entries, sorted by
// id, leaving out ids in skip (the built-in catalogue's) and malformed
// ones: npx agents are installable (their package, the registry's
// version, the program found in the package when installed); uvx agents
// run through uvx; binary ones are listed with where to get them.
func RegistrySpecs(agents []RegistryAgent, skip func(id string) bool) []acp.AgentSpec {
	var out []acp.AgentSpec
	for _, a := range agents {
		if a.ID == "" || !idPattern.MatchString(a.ID) || skip(a.ID) {
			continue
		}
		s := acp.AgentSpec{ID: a.ID, Name: a.Name, Registry: true}
		if s.Name == "" {
			s.Name = a.ID
		}
		d := a.Distribution
		switch {
		case d.NPX != nil && d.NPX.Package != "":
			name, version := splitPackage(d.NPX.Package)
			if version == "" {
				version = a.Version
			}
			if !ValidPackage(name) || !ValidVersionOrTag(version) {
				continue // a flag, URL, path or git remote: never near npm
			}
			bin := name[strings.LastIndex(name, "/")+1:]
			s.NPM = &acp.NPMPackage{Package: name, Version: version} // Bin "": the package's only program
			s.Command = acp.Command{Path: bin, Args: d.NPX.Args, Env: envList(d.NPX.Env)}
			s.Install = "Settings → Agents → Install (npm package " + name + ")"
			// Until installed into the data dir (the app then points
			// Command at it and clears this), bin on PATH is not it.
			s.NotInstalled = "not installed: " + s.Install
		case d.UVX != nil && d.UVX.Package != "":
			if !uvxPattern.MatchString(d.UVX.Package) {
				continue // an option ("--from=git+…") or a URL, not a package
			}
			s.Command = acp.Command{Path: "uvx", Args: append([]string{d.UVX.Package}, d.UVX.Args...), Env: envList(d.UVX.Env)}
			s.Install = "install uv (https://docs.astral.sh/uv/): it runs with uvx " + d.UVX.Package
		case len(d.Binary) > 0:
			b, ok := d.Binary["linux-x86_64"]
			if !ok {
				continue
			}
			s.Command = acp.Command{Path: filepath.Base(b.Cmd), Args: b.Args}
			// The hub installs no binary, and a name on PATH proves
			// nothing (a registry could say "sh"): the agent runs only
			// once the user installs it and adds it as their own agent
			// (agents.<id>.command), which replaces this entry.
			s.Install = "download " + b.Archive + ", install it, and add it in Settings → Agents as agents." + a.ID + ".command"
			s.NotInstalled = "not installed: " + s.Install
		default:
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// uvxPattern is a Python package requirement as uvx takes it: a name and
// an optional "==version" — not an option, a URL nor a path.
var uvxPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}(==[A-Za-z0-9][A-Za-z0-9.+!_-]{0,63})?$`)

// splitPackage splits "name@version" ("@scope/name@1.2.3" too).
func splitPackage(p string) (name, version string) {
	if i := strings.LastIndex(p, "@"); i > 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

func envList(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+m[k])
	}
	return out
}
