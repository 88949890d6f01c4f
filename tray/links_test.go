//go:build linux

package tray

import (
	"os/exec"
	"strings"
	"testing"
)

// The tray binary links neither net/http's Client nor its Transport (nor
// TLS through them): its hub client is hub/client's lean one
// (clientFor: ForHubLean). They would be ~1.7 MiB of its binary, resident
// nearly whole (docs/PERFORMANCE.md "The desktop's footprint" and docs/notes/2026-11-performance-desktop.md); one
// http.Client built anywhere the tray reaches brings them back.
func TestTrayLinksNoHTTPClient(t *testing.T) {
	needTools(t)
	bin := buildTray(t)
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	syms := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			syms[f[2]] = true
		}
	}
	if !syms["github.com/switchboard-hub/switchboard/hub/client.(*connPerRequest).Do"] {
		t.Fatal("the tray does not link the lean client: the check below proves nothing")
	}
	for _, sym := range []string{"net/http.(*Client).do", "net/http.(*Transport).roundTrip", "crypto/tls.(*Conn).clientHandshake"} {
		if syms[sym] {
			t.Errorf("the tray links %s", sym)
		}
	}
}
