package app

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// The data dir holds the database, the API token and hub.json. It and
// everything in it are private to the user: the folder 0700, files 0600.
const (
	tokenFile     = hub.TokenFile
	discoveryFile = hub.DiscoveryFile
	databaseFile  = "switchboard.db"
)

// ensureDataDir creates dir 0700, or tightens an existing one to 0700.
func ensureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	return nil
}

// loadOrCreateToken returns the API token from <dir>/token, creating it on
// first start: 32 random bytes in hex, in a file only the user can read. A
// token file another user could read is tightened to 0600.
func loadOrCreateToken(dir string) (string, error) {
	path := filepath.Join(dir, tokenFile)
	b, err := os.ReadFile(path)
	if err == nil {
		tok := strings.TrimSpace(string(b))
		if len(tok) != 64 || !isHex(tok) {
			return "", fmt.Errorf("token file %s is damaged (want 64 hex digits): delete it to make a new token", path)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("token: %w", err)
		}
		return tok, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("token: %w", err)
	}
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) { // another process made it just now
			return loadOrCreateToken(dir)
		}
		return "", fmt.Errorf("token: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("token: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("token: %w", err)
	}
	return tok, nil
}

// tokenPath is the token file of dir.
func tokenPath(dir string) string { return filepath.Join(dir, tokenFile) }

// newToken is a fresh API token: 32 random bytes in hex.
func newToken() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return hex.EncodeToString(raw[:]), nil
}

// rotateTokenFile writes a new token to <dir>/token and returns it. The
// write is atomic (a 0600 temporary file in dir, synced, renamed over the
// old one): a reader sees the old token or the new one, never a part.
func rotateTokenFile(dir string) (string, error) {
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(dir, tokenFile, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return tok, nil
}

// writeFileAtomic writes <dir>/<name>, mode 0600, through a temporary
// file renamed over it.
func writeFileAtomic(dir, name string, b []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// removeStaleDiscovery removes a hub.json left by a hub that did not exit
// cleanly. Call it holding the data dir's lock: then no hub runs on dir,
// so any hub.json there is stale, and a client must not find it (its port
// may belong to another program by now). It reports the pid it named.
func removeStaleDiscovery(dir string) (pid int, removed bool) {
	d, err := readDiscovery(dir)
	if err := os.Remove(filepath.Join(dir, discoveryFile)); err != nil {
		return 0, false
	}
	if err == nil {
		pid = d.PID
	}
	return pid, true
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// writeDiscovery writes hub.json atomically, mode 0600.
func writeDiscovery(dir string, d hub.Discovery) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".hub.json-*")
	if err != nil {
		return fmt.Errorf("hub.json: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("hub.json: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("hub.json: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("hub.json: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, discoveryFile)); err != nil {
		return fmt.Errorf("hub.json: %w", err)
	}
	return nil
}

// readDiscovery reads <dir>/hub.json (hub/client.ReadDiscovery is the
// clients' reader; this one is the writer's, which checks for another
// hub before it starts).
func readDiscovery(dir string) (hub.Discovery, error) {
	var d hub.Discovery
	b, err := os.ReadFile(filepath.Join(dir, discoveryFile))
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("hub.json: %w", err)
	}
	return d, nil
}
