package hub

import (
	"regexp"
	"strings"
)

// Hosts (issue 30, API.md Conventions "Hosts", ADR 0046): a thread, turn,
// permission or question of another machine's hub appears on this hub as
// "<id>@<host>", the host's own id with the host's name after the last
// "@". The ids this hub makes never hold an "@", so an id names a host
// exactly when it has one, and a host can only ever name its own objects:
// whatever ids a host sends, its copies get "@<its name>" appended, so an
// id a host made up ("p1@other") arrives as "p1@other@<host>" and still
// routes to that host.

// LocalHost is the name of this machine among the hosts, never a remote
// host's name.
const LocalHost = "local"

var hostNameRE = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)

// ValidHostName reports whether name may name a remote host:
// [a-z0-9-]{1,32}, never "local".
func ValidHostName(name string) bool { return name != LocalHost && hostNameRE.MatchString(name) }

// HostID is the local form of a host's id: "<id>@<host>" ("" stays "").
func HostID(id, host string) string {
	if id == "" || host == "" {
		return id
	}
	return id + "@" + host
}

// SplitHostID splits a local id into the host's own id and the host's
// name: ("<id>", "<host>") for "<id>@<host>", (id, "") for a local one.
func SplitHostID(id string) (remoteID, host string) {
	i := strings.LastIndexByte(id, '@')
	if i < 0 {
		return id, ""
	}
	return id[:i], id[i+1:]
}

// HostOf is the host an id names ("" for a local id).
func HostOf(id string) string {
	_, h := SplitHostID(id)
	return h
}

// LinkSecretHeader carries a link's secret (a hub's link secret, read by
// the local hub over the link with the token): a token holder that sends
// it decides as "link:<LinkSurfaceHeader>", the surface that decided on
// the other side of the link.
const (
	LinkSecretHeader  = "X-Switchboard-Link"
	LinkSurfaceHeader = "X-Switchboard-Link-Surface"
	// DecidedByLinkPrefix prefixes a decision that came over a link:
	// "link:window", "link:tray", "link:client:<id>".
	DecidedByLinkPrefix = "link:"
)

var linkSurfaceRE = regexp.MustCompile(`^[a-z]{1,16}(:[A-Za-z0-9._-]{1,64})?$`)

// LinkSurface is the Caller.Surface of a decision that came over a link
// from the surface named by the other side (what DecidedByOf recorded
// there): "link:<surface>", or "" when surface is not one DecidedByOf
// makes (nothing a link sends is trusted further than that).
func LinkSurface(surface string) string {
	if !linkSurfaceRE.MatchString(surface) || strings.HasPrefix(surface, DecidedByLinkPrefix) {
		return ""
	}
	return DecidedByLinkPrefix + surface
}

// ReasonHostUnreachable is details.reason of the UPSTREAM_UNAVAILABLE
// (502) a call for a host answers while its link is down.
const ReasonHostUnreachable = "HOST_UNREACHABLE"

// HostUnreachable is the error of a call for host while its link is down.
func HostUnreachable(host string) *Error {
	e := Errorf(CodeUpstreamUnavailable, "host %s is not connected: its hub cannot be reached now", host)
	e.Details = map[string]any{"reason": ReasonHostUnreachable, "host": host}
	return e
}
