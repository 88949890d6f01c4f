// Package hostmirror puts every host's threads in this hub (issue 30,
// "One window for every host"; ADR 0046).
//
// Per connected host it follows the host hub's global event stream from
// the last host seq kept (Last-Event-ID) and stores a copy of each event
// through the engine (engine.Mirror): the copy gets a local seq, the
// host's ids become "<id>@<host>" (hub/host.go) and its payload carries
// "host", "hostSeq" and "hostLog" (the host's log id, ADR 0053). The rows
// the events describe (threads, turns, permissions, questions) are
// upserted with them, so the global stream, search, export, the inbox and
// the tray cover every host unchanged. The host seq and log are stored in
// the copy's own row (store.HostSeq), so a link cut anywhere resumes with
// every event exactly once, and a host whose log is a new one (a reset
// data dir) is copied from its start. A turn's text deltas that arrive
// together (a link catching up) are joined into one copy, "hostSeqFrom"
// its first one's seq and "hostSeq" its last's (joinDeltas, ADR 0056):
// the same text, once, in fewer events.
//
// Router is hub.Service with every call that names a host's id ("<id>@<host>",
// or a CreateThreadRequest's Host) forwarded to that host through
// hub/client's Remote, the host's implementation of the same interfaces;
// everything else, reads of the copies included, goes to the local hub. A
// call for a host whose link is down answers 502 UPSTREAM_UNAVAILABLE with
// details.reason HOST_UNREACHABLE.
//
// A host is untrusted: its ids are only ever suffixed with its own name (so
// nothing it sends can name another host's object or a local one), hub-wide
// events and client requests are not copied, its payloads' envelope keys
// are dropped, an event over MaxCopyBytes is not stored, and its text is
// redacted and shown as agent text is.
//
// The link itself (ssh, the forwarded socket, the credential) is not here:
// a Dial gives a hub/client.Client of the host's hub, and FileLinks is the
// interim source of them until the hosts registry (issue 30, "the link")
// supplies its own.
package hostmirror
