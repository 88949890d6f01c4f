package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

func TestTokenAndDiscoveryFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := Ensure(dir); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadOrCreateToken(dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q %v", tok, err)
	}
	again, _ := LoadOrCreateToken(dir)
	if again != tok {
		t.Fatal("token changed on the second start")
	}
	for name, want := range map[string]os.FileMode{".": 0o700, TokenFile: 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v %v, want %v", name, fi.Mode().Perm(), err, want)
		}
	}
	if err := WriteDiscovery(dir, hub.Discovery{URL: "http://127.0.0.1:1", PID: 42, Version: "v"}); err != nil {
		t.Fatal(err)
	}
	d, err := client.ReadDiscovery(dir)
	if err != nil || d.PID != 42 {
		t.Fatalf("discovery %+v %v", d, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, DiscoveryFile))
	if strings.Contains(string(b), tok) {
		t.Fatal("hub.json holds the token")
	}
	if fi, _ := os.Stat(filepath.Join(dir, DiscoveryFile)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("hub.json mode %v", fi.Mode().Perm())
	}
	os.WriteFile(filepath.Join(dir, TokenFile), []byte("short\n"), 0o600)
	if _, err := LoadOrCreateToken(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged token: %v", err)
	}
}
