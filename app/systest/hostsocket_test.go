//go:build linux

package systest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/hosts"
)

// TestE2EHostSocket: a hub served on a unix socket (`serve --socket`, the
// way a host's hub runs) is reached through hub/hosts' Link seam as
// "a socket path and a token": connected with the hub's version, its API
// callable through Link.Client, the folder 0700 and the socket 0600; a
// second hub on the same socket is refused; once the hub stops the link
// says unreachable and has no client.
func TestE2EHostSocket(t *testing.T) {
	bins := buildE2E(t)
	h := prepareHub(t, bins, hubConfig{})
	sock := filepath.Join(h.dir, "run", "hub.sock")
	h.args = []string{"--socket", sock}
	h.start()

	for path, want := range map[string]os.FileMode{filepath.Dir(sock): 0o700, sock: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
	d, err := h.discovery()
	if err != nil || d.Socket != sock {
		t.Fatalf("hub.json: %+v %v, want socket %s", d, err, sock)
	}

	var seen []hub.HostState
	l := hosts.Socket("box", sock, h.token, func(x hub.Host) { seen = append(seen, x.State) })
	defer l.Close()
	got, changed := l.Watch()
	if got.State != hub.HostConnected || got.Version == "" || got.Name != "box" {
		t.Fatalf("link: %+v, want connected with a version", got)
	}
	c := l.Client()
	if c == nil {
		t.Fatal("a connected link has no client")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	agents, err := c.Agents(ctx)
	if err != nil || len(agents) == 0 {
		t.Fatalf("agents through the link: %v %v", agents, err)
	}

	// A wrong token: the hub on the socket does not prove it, so the
	// link is not connected (and the token is never sent).
	bad := hosts.Socket("bad", sock, "not-the-token", nil)
	if s := bad.Host().State; s != hub.HostStateUnreachable || bad.Client() != nil {
		t.Errorf("a wrong token: %s, want unreachable with no client", s)
	}

	// Another hub on the same socket (another data dir) is refused.
	other := h.serveCmd("--socket", sock)
	other.Args[3] = filepath.Join(h.dir, "data2")
	other.Stdout, other.Stderr = nil, nil
	if out, err := other.CombinedOutput(); err == nil || !strings.Contains(string(out), "already running") {
		t.Errorf("a second hub on %s: %v\n%s\nwant refused as already running", sock, err, out)
	}

	h.stop()
	l.Recheck(ctx)
	select {
	case <-changed:
	default:
		t.Error("Watch's channel was not closed at the change")
	}
	if x := l.Host(); x.State != hub.HostStateUnreachable || x.Error == "" || l.Client() != nil {
		t.Errorf("after the hub stopped: %+v, client %v; want unreachable with an error and no client", x, l.Client())
	}
	if len(seen) != 2 || seen[0] != hub.HostConnected || seen[1] != hub.HostStateUnreachable {
		t.Errorf("changes announced: %v, want [connected unreachable]", seen)
	}
}
