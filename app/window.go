package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/app/datadir"
)

// windowFile, in the data dir, remembers the window's size and position.
const windowFile = "window.json"

// Default and minimum window sizes.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 640, 480
)

// windowState is the window's geometry as it was when it last closed.
type windowState struct {
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	Maximised bool `json:"maximised,omitempty"`
}

// loadWindowState reads the remembered geometry; ok is false when there is
// none, or none usable (then the defaults apply, centred).
func loadWindowState(dataDir string) (s windowState, ok bool) {
	b, err := os.ReadFile(filepath.Join(dataDir, windowFile))
	if err != nil || json.Unmarshal(b, &s) != nil {
		return windowState{}, false
	}
	if s.Width < minWidth || s.Height < minHeight || s.Width > 1<<14 || s.Height > 1<<14 {
		return windowState{}, false
	}
	return s, true
}

// saveWindowState writes s atomically through datadir.WriteFileAtomic: each save
// has its own temporary file, so two saves at once (Quit and a signal both
// reach OnBeforeClose) leave one whole file, never an error or a part.
func saveWindowState(dataDir string, s windowState) error {
	if s.Width < minWidth || s.Height < minHeight {
		return fmt.Errorf("window state: %dx%d is smaller than the minimum", s.Width, s.Height)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := datadir.WriteFileAtomic(dataDir, windowFile, append(b, '\n')); err != nil {
		return fmt.Errorf("window state: %w", err)
	}
	return nil
}

// instanceID is the single-instance id of the desktop app on dataDir: one
// window per data dir (a second launch on it focuses the first), while
// apps on other data dirs (tests, a second profile) run side by side.
func instanceID(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return "switchboard-" + hex.EncodeToString(sum[:8])
}
