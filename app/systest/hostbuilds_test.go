//go:build linux

package systest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub/hosts"
)

// TestHostBuildArm64: the linux/arm64 build the app installs on arm64
// hosts is made as `make host-builds` makes it (CGO_ENABLED=0, -tags
// headless) and is, by its ELF header, an aarch64 program, which
// hosts.Binaries hands out for linux/arm64 and refuses for linux/amd64.
func TestHostBuildArm64(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, hosts.HeadlessName("linux", "arm64"))
	cmd := exec.Command("go", "build", "-tags", "headless", "-o", out, ".")
	cmd.Dir = testkit.ModuleRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for linux/arm64: %v\n%s", err, b)
	}
	if err := hosts.CheckELF(out, "linux", "arm64"); err != nil {
		t.Fatalf("the arm64 build: %v", err)
	}
	if err := hosts.CheckELF(out, "linux", "amd64"); err == nil || !strings.Contains(err.Error(), "not linux/amd64") {
		t.Errorf("the arm64 build passed as amd64: %v", err)
	}
	if got, err := hosts.Binaries("/nowhere/switchboard", dir)("linux", "arm64"); err != nil || got != out {
		t.Errorf("Binaries for linux/arm64: %q %v, want %s", got, err, out)
	}
	// A file named for amd64 that is an arm64 program is refused.
	wrong := filepath.Join(dir, hosts.HeadlessName("linux", "amd64"))
	if err := os.Rename(out, wrong); err != nil {
		t.Fatal(err)
	}
	if _, err := hosts.Binaries("/nowhere/switchboard", dir)("linux", "amd64"); err == nil || !strings.Contains(err.Error(), "not linux/amd64") {
		t.Errorf("an arm64 program named for amd64 was handed out: %v", err)
	}
}
