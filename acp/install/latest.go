package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
)

// LatestEvery is how often the registry's latest version of a package is
// checked, at most.
const LatestEvery = 24 * time.Hour

// latestCache is Dir/latest.json: the latest versions seen, by package.
type latestCache map[string]struct {
	Version   string    `json:"version"`
	CheckedAt time.Time `json:"checkedAt"`
}

func (in *Installer) readLatest() latestCache {
	c := latestCache{}
	b, err := os.ReadFile(filepath.Join(in.Dir, "latest.json"))
	if err == nil {
		_ = json.Unmarshal(b, &c)
	}
	return c
}

// CachedLatest is the last latest version seen for pkg, if any (no
// network).
func (in *Installer) CachedLatest(pkg string) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.readLatest()[pkg].Version
}

// Latest returns the registry's `latest` dist-tag of pkg, asking npm at
// most once per LatestEvery (the answer is cached in Dir/latest.json);
// offline, the cached answer (or "" and the error).
func (in *Installer) Latest(ctx context.Context, pkg string) (string, error) {
	in.mu.Lock()
	c := in.readLatest()
	in.mu.Unlock()
	if e, ok := c[pkg]; ok && in.now().Sub(e.CheckedAt) < LatestEvery {
		return e.Version, nil
	}
	if !ValidPackage(pkg) {
		return c[pkg].Version, &Error{Reason: ReasonFailed, Message: fmt.Sprintf("%q is not an npm package name", pkg)}
	}
	npm, err := in.npm()
	if err != nil {
		return c[pkg].Version, err
	}
	args := []string{"view", "--json", "--no-update-notifier"}
	if in.Registry != "" {
		args = append(args, "--registry", in.Registry)
	}
	args = append(args, "--", pkg+"@latest", "version") // after "--": never a flag
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tmp, err := os.MkdirTemp("", "switchboard-npm-view-")
	if err != nil {
		return c[pkg].Version, err
	}
	defer os.RemoveAll(tmp)
	out, err := in.runNPM(ctx, npm, tmp, args, nil)
	if err != nil {
		return c[pkg].Version, npmError(ctx, "npm view "+pkg, out, err)
	}
	var v string
	if err := json.Unmarshal([]byte(lastJSON(out)), &v); err != nil || v == "" {
		return c[pkg].Version, &Error{Reason: ReasonNPMRefused, Message: "npm view " + pkg + ": no version in its answer", Output: lastLines(out, 10)}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	c = in.readLatest()
	c[pkg] = struct {
		Version   string    `json:"version"`
		CheckedAt time.Time `json:"checkedAt"`
	}{v, in.now().UTC()}
	if b, err := json.MarshalIndent(c, "", "  "); err == nil {
		_ = os.MkdirAll(in.Dir, 0o700)
		tmpf := filepath.Join(in.Dir, ".latest.json."+randHex())
		if os.WriteFile(tmpf, b, 0o600) == nil {
			_ = os.Rename(tmpf, filepath.Join(in.Dir, "latest.json"))
		}
	}
	return v, nil
}

// lastJSON is the last line of out that looks like a JSON string (npm may
// print log lines before it).
func lastJSON(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, `"`) {
			return l
		}
	}
	return ""
}

// Newer reports whether version a is newer than b (acp.NewerVersion).
func Newer(a, b string) bool { return acp.NewerVersion(a, b) }
