// Package datadir is the hub's data dir: the folder (0700), its lock (one
// hub per data dir), the API token file, hub.json (what clients discover)
// and the database's name. app uses it; it imports hub only.
package datadir

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

// ErrHubRunning: another process holds the data dir's lock (Lock).
var ErrHubRunning = errors.New("another Switchboard hub is already running on this data dir")

// The data dir holds the database, the API token and hub.json. It and
// everything in it are private to the user: the folder 0700, files 0600.
const (
	TokenFile     = hub.TokenFile
	DiscoveryFile = hub.DiscoveryFile
	DatabaseFile  = "switchboard.db"
	// LinkSecretFile holds the secret of the links to this hub (issue
	// 30, hub/host.go): made anew at every start (NewLinkSecret), read
	// with the token by the hub at the other end of a link.
	LinkSecretFile = "link-secret"
	// HostsDir holds a folder per host this hub links to.
	HostsDir = "hosts"
)

// Ensure creates dir 0700, or tightens an existing one to 0700.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	return nil
}

// LoadOrCreateToken returns the API token from <dir>/token, creating it on
// first start: 32 random bytes in hex, in a file only the user can read. A
// token file another user could read is tightened to 0600.
func LoadOrCreateToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
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
			return LoadOrCreateToken(dir)
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

// TokenPath is the token file of dir.
func TokenPath(dir string) string { return filepath.Join(dir, TokenFile) }

// newToken is a fresh API token: 32 random bytes in hex.
func newToken() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return hex.EncodeToString(raw[:]), nil
}

// NewLinkSecret writes a new link secret to <dir>/link-secret (0600,
// atomically, as RotateToken) and returns it: 32 random bytes in hex.
func NewLinkSecret(dir string) (string, error) {
	s, err := newToken()
	if err != nil {
		return "", err
	}
	if err := WriteFileAtomic(dir, LinkSecretFile, []byte(s+"\n")); err != nil {
		return "", fmt.Errorf("link secret: %w", err)
	}
	return s, nil
}

// RotateToken writes a new token to <dir>/token and returns it. The
// write is atomic (a 0600 temporary file in dir, synced, renamed over the
// old one): a reader sees the old token or the new one, never a part.
func RotateToken(dir string) (string, error) {
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	if err := WriteFileAtomic(dir, TokenFile, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return tok, nil
}

// WriteFileAtomic writes <dir>/<name>, mode 0600, through a temporary
// file renamed over it.
func WriteFileAtomic(dir, name string, b []byte) error {
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

// RemoveStale removes a hub.json left by a hub that did not exit
// cleanly. Call it holding the data dir's lock: then no hub runs on dir,
// so any hub.json there is stale, and a client must not find it (its port
// may belong to another program by now). It reports the pid it named.
func RemoveStale(dir string) (pid int, removed bool) {
	d, err := ReadDiscovery(dir)
	if err := os.Remove(filepath.Join(dir, DiscoveryFile)); err != nil {
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

// WriteDiscovery writes hub.json atomically, mode 0600.
func WriteDiscovery(dir string, d hub.Discovery) error {
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
	if err := os.Rename(tmp.Name(), filepath.Join(dir, DiscoveryFile)); err != nil {
		return fmt.Errorf("hub.json: %w", err)
	}
	return nil
}

// ReadDiscovery reads <dir>/hub.json (hub/client.ReadDiscovery is the
// clients' reader; this one is the writer's, which checks for another
// hub before it starts).
func ReadDiscovery(dir string) (hub.Discovery, error) {
	var d hub.Discovery
	b, err := os.ReadFile(filepath.Join(dir, DiscoveryFile))
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("hub.json: %w", err)
	}
	return d, nil
}
