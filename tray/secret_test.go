//go:build unix

package tray

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestReadSecret: the app's secret is read from an inherited descriptor to
// EOF (never argv or env); what is not a secret is refused.
// On stdin (--secret-fd 0, how the app passes it on Windows).
func TestReadSecretStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = old })
	go func() { w.WriteString(testTraySecret + "\n"); w.Close() }()
	if got, err := readSecret(0); err != nil || got != testTraySecret {
		t.Fatalf("readSecret(0) = %q, %v", got, err)
	}
}

func TestReadSecret(t *testing.T) {
	for _, tt := range []struct {
		name, give, want string
		ok               bool
	}{
		{"hex", testTraySecret, testTraySecret, true},
		{"trailing newline", testTraySecret + "\n", testTraySecret, true},
		{"empty", "", "", false},
		{"short", "abc", "", false},
		{"control byte", testTraySecret + "\x00x", "", false},
		{"too long", strings.Repeat("a", maxSecret+1), "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() { w.WriteString(tt.give); w.Close() }()
			// readSecret closes the descriptor it is given: give it its own.
			fd, err := syscall.Dup(int(r.Fd()))
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			got, err := readSecret(fd)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("readSecret(%q) = %q, %v", tt.give, got, err)
			}
		})
	}
	var stderr bytes.Buffer
	if code := Run(context.Background(), []string{"--data-dir", t.TempDir(), "--secret-fd", "987"}, &stderr); code != 1 || !strings.Contains(stderr.String(), "--secret-fd 987") {
		t.Errorf("a closed --secret-fd: exit %d, stderr %q", code, stderr.String())
	}
}
