package hub

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// Hosts: other machines reached with the user's own OpenSSH, each running
// a hub of its own (docs/API.md "Hosts", ADR 0045). The local machine is
// the host named LocalHost: always listed, never added or removed.

// EventHostChanged is hub-wide: a Host whose state, version or error
// changed (its payload is the Host). Stored like config_applied, so a
// window that reconnects learns the last state from the stream.
const EventHostChanged = "host_changed"

// HostState is where the link to a host stands.
type HostState string

const (
	// HostConnecting: the link is being made (ssh, install, start, token).
	HostConnecting HostState = "connecting"
	// HostConnected: the remote hub's API answers through the link.
	HostConnected HostState = "connected"
	// HostStateUnreachable: the link is down; it is retried with backoff.
	HostStateUnreachable HostState = "unreachable"
	// HostNeedsAttention: the link cannot be made without the user
	// (an unknown host key to trust, a refused key, an impossible install,
	// a newer hub there); not retried until connected again by hand.
	HostNeedsAttention HostState = "needs_attention"
)

// Host is one host as the API shows it.
type Host struct {
	Name string `json:"name"`
	// SSH is what the link passes to ssh as the destination: an alias of
	// the user's ~/.ssh/config or user@host[:port]. "" for LocalHost.
	SSH   string    `json:"ssh"`
	State HostState `json:"state"`
	// Since is when State began.
	Since time.Time `json:"since"`
	// Version is the remote hub's version ("" until it answered once).
	Version string `json:"version"`
	// Error says why the host is unreachable or needs attention (ssh's
	// own message where ssh gave one).
	Error string `json:"error,omitempty"`
	// Fingerprint is the host key's SHA256 fingerprint when State is
	// needs_attention because the key is unknown: the value the user
	// trusts with POST /v1/hosts/{name}/connect {"trustKey"}.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Note is what the user should know that is not an error (an install
	// in progress, logind ending the remote hub at logout and
	// `loginctl enable-linger`, an update waiting for running turns).
	Note string `json:"note,omitempty"`
}

// HostConnect is the body of POST /v1/hosts/{name}/connect.
type HostConnect struct {
	// TrustKey, when set, is the fingerprint the user read and trusts:
	// the next connection accepts that unknown key once
	// (StrictHostKeyChecking=accept-new) and only if ssh reports the same
	// fingerprint. A changed key is never accepted from the app.
	TrustKey string `json:"trustKey,omitempty"`
}

// HostService is the hosts capability (Services.Hosts): the registry of
// hosts and their links. nil on a hub without it (ErrNoHosts).
type HostService interface {
	// ListHosts returns LocalHost first, then the hosts by name.
	ListHosts(ctx context.Context) ([]Host, error)
	// Host returns one host (NOT_FOUND when it is not listed).
	Host(ctx context.Context, name string) (Host, error)
	// AddHost adds a host and starts connecting it: INVALID_ARGUMENT for a
	// bad name or ssh value, CONFLICT when the name is taken.
	AddHost(ctx context.Context, name, ssh string) (Host, error)
	// RemoveHost stops the link, forgets the host and removes its folder
	// (sockets, nothing else is kept: the credential lives in memory).
	// LocalHost cannot be removed (INVALID_ARGUMENT).
	RemoveHost(ctx context.Context, name string) error
	// ConnectHost connects a host now (again), trusting the key named.
	ConnectHost(ctx context.Context, name string, c HostConnect) (Host, error)
}

// ErrNoHosts is the NOT_FOUND answer of a hub without hosts.
var ErrNoHosts = Errorf(CodeNotFound, "hosts are not available")

var hostNamePattern = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)

// CheckHostName refuses a host name that is not [a-z0-9-]{1,32} or is
// LocalHost (INVALID_ARGUMENT).
func CheckHostName(name string) error {
	if name == LocalHost {
		return Errorf(CodeInvalidArgument, "host name %q is the local machine's; pick another", name)
	}
	if !hostNamePattern.MatchString(name) {
		return Errorf(CodeInvalidArgument, "host name %q: use 1 to 32 of a-z, 0-9 and -", name)
	}
	return nil
}

// CheckHostSSH refuses an ssh destination that ssh would read as an option
// (it starts with -: "-oProxyCommand=…"), is empty, or holds whitespace or
// control characters (INVALID_ARGUMENT). What it names is the user's
// business: their ssh config decides how it is reached.
func CheckHostSSH(ssh string) error {
	switch {
	case ssh == "":
		return Errorf(CodeInvalidArgument, "ssh: give an alias of your ~/.ssh/config or user@host[:port]")
	case strings.HasPrefix(ssh, "-"):
		return Errorf(CodeInvalidArgument, "ssh: %q starts with -, which ssh reads as an option; give an alias or user@host[:port]", ssh)
	case len(ssh) > 255:
		return Errorf(CodeInvalidArgument, "ssh: longer than 255 characters")
	}
	for _, r := range ssh {
		if r <= ' ' || r == 0x7f {
			return Errorf(CodeInvalidArgument, "ssh: %q holds a space or a control character", ssh)
		}
	}
	return nil
}

// HostsOrNone is s.Hosts, or, on a hub without hosts, one whose every
// method answers ErrNoHosts (the window's bindings take it so).
func (s Services) HostsOrNone() HostService {
	if s.Hosts == nil {
		return noHosts{}
	}
	return s.Hosts
}

type noHosts struct{}

func (noHosts) ListHosts(context.Context) ([]Host, error)             { return nil, ErrNoHosts }
func (noHosts) Host(context.Context, string) (Host, error)            { return Host{}, ErrNoHosts }
func (noHosts) RemoveHost(context.Context, string) error              { return ErrNoHosts }
func (noHosts) AddHost(context.Context, string, string) (Host, error) { return Host{}, ErrNoHosts }
func (noHosts) ConnectHost(context.Context, string, HostConnect) (Host, error) {
	return Host{}, ErrNoHosts
}
