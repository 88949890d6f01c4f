package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// Hub is a hub found through a data dir: its hub.json and its token. The
// token is unexported and neither String nor LogValue shows it, so a Hub
// may be logged.
type Hub struct {
	hub.Discovery
	token     string
	tokenPath string // the token file, read again on 401 ("" for NewHub)
}

// String describes h without its token.
func (h Hub) String() string { return fmt.Sprintf("hub %s (pid %d, %s)", h.URL, h.PID, h.Version) }

// LogValue keeps the token out of slog output.
func (h Hub) LogValue() slog.Value { return slog.StringValue(h.String()) }

// NewHub is a hub at baseURL with token, for a caller that knows both
// without a data dir (tests, benchmarks).
func NewHub(baseURL, token string) Hub {
	return Hub{Discovery: hub.Discovery{URL: strings.TrimRight(baseURL, "/")}, token: token}
}

// ErrNoHub: the data dir has no hub.json, so no hub is running there.
var ErrNoHub = errors.New("no Switchboard hub is running (no hub.json)")

// DataDirError is a hub.json or token file that cannot be read or makes
// no sense.
type DataDirError struct {
	Path string // the file
	Err  error
}

func (e *DataDirError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *DataDirError) Unwrap() error { return e.Err }

// ReadDiscovery reads <dataDir>/hub.json. A missing file is an error
// wrapping os.ErrNotExist.
func ReadDiscovery(dataDir string) (hub.Discovery, error) {
	var d hub.Discovery
	b, err := os.ReadFile(filepath.Join(dataDir, hub.DiscoveryFile))
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("hub.json: %w", err)
	}
	return d, nil
}

// Discover reads <dataDir>/hub.json and <dataDir>/token. The error wraps
// ErrNoHub when hub.json does not exist; it is a *DataDirError when either
// file cannot be read or makes no sense (a url that is not http, an empty
// token). Discover does not check that the hub answers, nor that it is the
// hub (a client checks that before it sends the token: see Client.Connect).
func Discover(dataDir string) (Hub, error) {
	var h Hub
	path := filepath.Join(dataDir, hub.DiscoveryFile)
	d, err := ReadDiscovery(dataDir)
	if errors.Is(err, os.ErrNotExist) {
		return h, fmt.Errorf("%w in %s: start `switchboard serve` or the desktop app", ErrNoHub, dataDir)
	}
	if err != nil {
		return h, &DataDirError{path, err}
	}
	u, err := url.Parse(d.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return h, &DataDirError{path, fmt.Errorf("url %q is not an http URL", d.URL)}
	}
	d.URL = strings.TrimRight(d.URL, "/")
	h.Discovery = d
	tpath := filepath.Join(dataDir, hub.TokenFile)
	t, err := os.ReadFile(tpath)
	if err != nil {
		return h, &DataDirError{tpath, err}
	}
	h.token, h.tokenPath = strings.TrimSpace(string(t)), tpath
	if h.token == "" {
		return h, &DataDirError{tpath, errors.New("the token file is empty")}
	}
	return h, nil
}

// rereadToken reads h's token file again: the token as it is now, and
// whether it differs from h's. A Hub without a token file (NewHub) has
// nothing to re-read.
func (h Hub) rereadToken() (Hub, bool) {
	if h.tokenPath == "" {
		return h, false
	}
	b, err := os.ReadFile(h.tokenPath)
	tok := strings.TrimSpace(string(b))
	if err != nil || tok == "" || tok == h.token {
		return h, false
	}
	h.token = tok
	return h, true
}
