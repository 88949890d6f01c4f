package hosts

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Socket is a Link to a hub listening on the unix socket at path with
// token, without ssh: the host as the rest of the hub sees it, for tests
// (a `switchboard-headless serve --socket` hub started by the test) and
// for the mirror's development. It is connected while the hub there
// answers /healthz with the proof of token, and unreachable otherwise;
// Connect (or Recheck) looks again.
func Socket(name, path, token string, onChange func(hub.Host)) *SocketLink {
	l := &SocketLink{status: newStatus(name, "unix:"+path, onChange), path: path, token: token}
	l.Connect("")
	return l
}

// SocketLink is the Link Socket returns.
type SocketLink struct {
	*status
	path, token string
	mu          sync.Mutex // one check at a time
	closed      bool
}

// Connect checks the hub on the socket now (trustKey has no meaning
// without ssh).
func (l *SocketLink) Connect(string) { l.Recheck(context.Background()) }

// Recheck asks the hub on the socket for its version (its proof of the
// token included) and sets the state from the answer.
func (l *SocketLink) Recheck(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c := client.ForSocket(l.path, l.token, linkClientOptions())
	v, err := c.HubVersion(ctx)
	if err != nil {
		l.set(hub.HostStateUnreachable, err.Error(), "", nil, nil)
		return
	}
	l.set(hub.HostConnected, "", "", c, func(h *hub.Host) { h.Version = v })
}

// Close forgets the client and the token.
func (l *SocketLink) Close() error {
	l.mu.Lock()
	l.closed = true
	l.token = ""
	l.mu.Unlock()
	l.set(hub.HostStateUnreachable, "removed", "", nil, nil)
	return nil
}

// linkClientOptions: how the local hub calls a host's hub.
func linkClientOptions() client.Options {
	return client.Options{ClientID: "switchboard-link", All: true}
}
