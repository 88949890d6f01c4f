package hosts

import (
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Link is the connection to one host's hub.
//
// Contract: Client is non-nil exactly while Host().State is
// hub.HostConnected, and the client it returns calls the remote hub's API
// as that hub's own token holder (ClientID "switchboard-link:<local
// hub>", ?scope=all); after the link drops, calls on a client taken
// earlier fail (the socket is gone) and a new connection gives a new
// client. Watch lets a caller follow the link without polling: it returns
// the Host now and a channel closed at the next change of state, version,
// error or note. A Link is safe for concurrent use.
type Link interface {
	// Name is the host's name ([a-z0-9-]{1,32}, never hub.LocalHost).
	Name() string
	// Host is the host now: state and since, the remote version, error.
	Host() hub.Host
	// Watch is Host and a channel closed at its next change.
	Watch() (hub.Host, <-chan struct{})
	// Client is the remote hub's API, nil unless connected.
	Client() *client.Client
	// Connect makes the link again now (after needs_attention, or to skip
	// a backoff); trustKey, when not "", is the fingerprint the user
	// trusts for an unknown host key.
	Connect(trustKey string)
	// Close ends the link for good: the connection, its sockets and the
	// credential held in memory. The remote hub keeps running.
	Close() error
}

// status is what every Link keeps: the Host, its watchers and the client.
type status struct {
	mu      sync.Mutex
	host    hub.Host
	client  *client.Client
	changed chan struct{}
	onSet   func(hub.Host) // the registry's announcer (host_changed)
	now     func() time.Time
}

func newStatus(name, ssh string, onSet func(hub.Host)) *status {
	return &status{host: hub.Host{Name: name, SSH: ssh, State: hub.HostConnecting, Since: time.Now().UTC()},
		changed: make(chan struct{}), onSet: onSet, now: time.Now}
}

func (s *status) Name() string { return s.host.Name }

func (s *status) Host() hub.Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host
}

func (s *status) Watch() (hub.Host, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host, s.changed
}

func (s *status) Client() *client.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.host.State != hub.HostConnected {
		return nil
	}
	return s.client
}

// set moves the host to state with err and note (Since changes with the
// state only), sets the client (nil unless connected), and tells the
// watchers and the announcer when anything shown changed.
func (s *status) set(state hub.HostState, errText, note string, c *client.Client, edit func(*hub.Host)) {
	s.mu.Lock()
	h := s.host
	if h.State != state {
		h.Since = s.now().UTC()
	}
	h.State, h.Error, h.Note = state, errText, note
	if state != hub.HostNeedsAttention {
		h.Fingerprint = ""
	}
	if edit != nil {
		edit(&h)
	}
	if state != hub.HostConnected {
		c = nil
	}
	s.client = c
	same := h == s.host
	s.host = h
	if same {
		s.mu.Unlock()
		return
	}
	close(s.changed)
	s.changed = make(chan struct{})
	on := s.onSet
	s.mu.Unlock()
	if on != nil {
		on(h)
	}
}
