// Package autostart writes and removes the tray's login entry (config
// tray.autostart) and finds Switchboard's programs (the tray, the app). The hub (app)
// uses it; it imports nothing of the module.
package autostart

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Start at login (config tray.autostart, Settings → "Start the tray at
// login"): on Linux and the BSDs the hub writes or removes the user's
// freedesktop autostart entry, $XDG_CONFIG_HOME/autostart/switchboard-tray.desktop
// (~/.config/autostart/…), which starts switchboard-tray when the user
// logs in. The package installs no such entry: only this setting does.
//
// The entry names the data dir it was written for (X-Switchboard-DataDir):
// a hub removes only an entry it wrote for its own data dir, so a hub on
// another data dir (a test, a second profile) never removes the user's,
// and a file the user wrote by hand (no such key) is never removed.
//
// macOS (a LaunchAgent) and Windows (the Startup folder) are not done yet:
// there the setting is logged as unsupported (docs/building.md).

// fileName is the entry's file name in the autostart folder.
const fileName = "switchboard-tray.desktop"

// dataDirKey marks an entry as written by this setting, and for
// which data dir.
const dataDirKey = "X-Switchboard-DataDir"

// Supported reports whether this OS has freedesktop autostart.
func Supported() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return true
	}
	return false
}

// Path is $XDG_CONFIG_HOME/autostart/switchboard-tray.desktop,
// else ~/.config/autostart/switchboard-tray.desktop.
func Path() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "autostart", fileName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "autostart", fileName), nil
}

// Program finds switchboard-tray (Find).
func Program() string { return Find("switchboard-tray") }

// Find finds one of Switchboard's programs, name (".exe" added on
// Windows): beside this binary first (build/bin, /usr/bin from the
// package), else on PATH, as an absolute path. "" when there is none.
func Find(name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return ""
}

// Target is the hub an entry starts the tray for.
type Target struct {
	// DataDir is the hub's data dir.
	DataDir string
	// DefaultDir is the default data dir ("": unknown): the entry passes
	// --data-dir only for another one, so it keeps working when the
	// environment at login differs.
	DefaultDir string
	// Tray is the switchboard-tray to start ("": the one on PATH at login).
	Tray string
}

// Apply makes the autostart entry match enabled for the hub on
// t.DataDir: written (or rewritten when it differs) when enabled, removed
// when not and it is this data dir's. It reports what it did: "written",
// "removed" or "" (nothing to do).
func Apply(enabled bool, t Target) (string, error) {
	if !Supported() {
		if enabled {
			return "", fmt.Errorf("tray.autostart: not supported on %s yet", runtime.GOOS)
		}
		return "", nil
	}
	path, err := Path()
	if err != nil {
		return "", fmt.Errorf("tray.autostart: %w", err)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("tray.autostart: %w", err)
	}
	if !enabled {
		if old == nil || desktopValue(old, dataDirKey) != t.DataDir {
			return "", nil // none, or not ours to remove
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("tray.autostart: %w", err)
		}
		return "removed", nil
	}
	entry, err := Entry(t)
	if err != nil {
		return "", err
	}
	if bytes.Equal(old, entry) {
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("tray.autostart: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, entry, 0o644); err != nil {
		return "", fmt.Errorf("tray.autostart: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("tray.autostart: %w", err)
	}
	return "written", nil
}

// Entry is the desktop entry that starts t.Tray (else switchboard-tray
// from PATH) on t.DataDir.
func Entry(t Target) ([]byte, error) {
	dataDir, tray := t.DataDir, t.Tray
	if strings.ContainsAny(dataDir, "\n\r") || strings.ContainsAny(tray, "\n\r") {
		return nil, errors.New("tray.autostart: a path with a line break cannot be written to a desktop entry")
	}
	if tray == "" {
		tray = "switchboard-tray"
	}
	args := []string{tray}
	if t.DefaultDir == "" || filepath.Clean(t.DefaultDir) != filepath.Clean(dataDir) {
		args = append(args, "--data-dir", dataDir)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = desktopExecArg(a)
	}
	var b bytes.Buffer
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Name=Switchboard tray\n")
	b.WriteString("Comment=Switchboard's tray icon: approvals and running agents. Written by Settings → Start the tray at login.\n")
	b.WriteString("Exec=" + strings.Join(quoted, " ") + "\n")
	b.WriteString("Icon=switchboard\n")
	b.WriteString("Terminal=false\n")
	b.WriteString("NoDisplay=true\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	b.WriteString(dataDirKey + "=" + desktopEscape(dataDir) + "\n")
	return b.Bytes(), nil
}

// desktopExecArg quotes one argument of an Exec key (Desktop Entry
// Specification, "The Exec key"): plain when it holds nothing special,
// else in double quotes with ", `, $ and \ backslash-escaped; then the
// string escaping every value gets (\ doubled) and % doubled (field codes).
func desktopExecArg(a string) string {
	plain := a != "" && !strings.ContainsAny(a, " \t\"'\\><~|&;$*?#()`=%")
	if !plain {
		var q strings.Builder
		q.WriteByte('"')
		for _, r := range a {
			if strings.ContainsRune("\"`$\\", r) {
				q.WriteByte('\\')
			}
			q.WriteRune(r)
		}
		q.WriteByte('"')
		a = q.String()
	}
	return strings.ReplaceAll(desktopEscape(a), "%", "%%")
}

// desktopEscape escapes a desktop entry string value: \ as \\ (line
// breaks are refused before).
func desktopEscape(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

// desktopValue is the value of key in entry's lines (unescaped), "" when
// there is none.
func desktopValue(entry []byte, key string) string {
	sc := bufio.NewScanner(bytes.NewReader(entry))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.ReplaceAll(strings.TrimSpace(v), `\\`, `\`)
		}
	}
	return ""
}
