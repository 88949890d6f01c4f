package autostart

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestApplyAutostart(t *testing.T) {
	if !Supported() {
		t.Skipf("no freedesktop autostart on %s", runtime.GOOS)
	}
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	entry := filepath.Join(cfg, "autostart", "switchboard-tray.desktop")
	defDir := filepath.Join(t.TempDir(), "xdg data", "switchboard") // the default data dir

	// Off with no entry: nothing happens.
	if did, err := Apply(false, Target{DataDir: defDir, DefaultDir: defDir, Tray: "/usr/bin/switchboard-tray"}); err != nil || did != "" {
		t.Fatalf("off, no entry: %q %v", did, err)
	}
	// On, for the default data dir: no --data-dir.
	if did, err := Apply(true, Target{DataDir: defDir, DefaultDir: defDir, Tray: "/usr/bin/switchboard-tray"}); err != nil || did != "written" {
		t.Fatalf("on: %q %v", did, err)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[Desktop Entry]\n", "\nType=Application\n", "\nExec=/usr/bin/switchboard-tray\n", "\nX-Switchboard-DataDir=" + defDir + "\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("entry lacks %q:\n%s", want, b)
		}
	}
	// Unchanged: not rewritten.
	if did, err := Apply(true, Target{DataDir: defDir, DefaultDir: defDir, Tray: "/usr/bin/switchboard-tray"}); err != nil || did != "" {
		t.Fatalf("on again: %q %v", did, err)
	}
	// Another data dir's hub turning it off leaves the entry alone.
	if did, err := Apply(false, Target{DataDir: t.TempDir(), DefaultDir: defDir, Tray: ""}); err != nil || did != "" {
		t.Fatalf("off from another data dir: %q %v", did, err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("the entry went with another data dir's off: %v", err)
	}
	// Its own data dir turning it off removes it.
	if did, err := Apply(false, Target{DataDir: defDir, DefaultDir: defDir, Tray: ""}); err != nil || did != "removed" {
		t.Fatalf("off: %q %v", did, err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("the entry is still there: %v", err)
	}

	// A hand-written entry (no X-Switchboard-DataDir) is never removed.
	hand := []byte("[Desktop Entry]\nType=Application\nExec=switchboard-tray\n")
	if err := os.WriteFile(entry, hand, 0o644); err != nil {
		t.Fatal(err)
	}
	if did, err := Apply(false, Target{DataDir: defDir, DefaultDir: defDir, Tray: ""}); err != nil || did != "" {
		t.Fatalf("off with a hand-written entry: %q %v", did, err)
	}
	if b, _ := os.ReadFile(entry); string(b) != string(hand) {
		t.Fatalf("the hand-written entry changed:\n%s", b)
	}
}

// A data dir that is not the default is passed, quoted as the Desktop
// Entry Specification says, and read back as it was.
func TestAutostartEntryQuoting(t *testing.T) {
	dir := `/home/me/my "data" $HOME 100% \x`
	b, err := Entry(Target{DataDir: dir, DefaultDir: "/default", Tray: "/opt/switch board/switchboard-tray"})
	if err != nil {
		t.Fatal(err)
	}
	want := `Exec="/opt/switch board/switchboard-tray" --data-dir "/home/me/my \\"data\\" \\$HOME 100%% \\\\x"`
	if !strings.Contains(string(b), "\n"+want+"\n") {
		t.Errorf("entry:\n%s\nwant the line %s", b, want)
	}
	if got := desktopValue(b, dataDirKey); got != dir {
		t.Errorf("data dir read back %q, want %q", got, dir)
	}
	if _, err := Entry(Target{DataDir: "/a\nExec=evil", DefaultDir: "/default", Tray: ""}); err == nil {
		t.Error("a data dir with a line break was written")
	}
	if b, _ := Entry(Target{DataDir: dir, DefaultDir: "/default", Tray: ""}); !strings.Contains(string(b), "\nExec=switchboard-tray --data-dir ") {
		t.Errorf("no tray binary found: want switchboard-tray from PATH:\n%s", b)
	}
}
