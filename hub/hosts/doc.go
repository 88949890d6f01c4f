// Package hosts is the local hub's side of other machines (issue 30,
// ADR 0045): the registry of hosts and, per host, its Link — the user's
// own OpenSSH (`ssh -N -o ControlMaster=yes -L <dir>/hub.sock:<remote
// socket>`, sshlink.go) to a `switchboard-headless serve --socket` hub
// there, installed and started detached on first connect.
//
// The seam the rest of the hub builds on (the copy of a host's threads and
// events, <id>@<host> forwarding, decisions over the link) is Link: per
// connected host, a *client.Client to the remote hub's API through the
// forwarded unix socket, with the remote hub's token in memory only.
// Nothing else of the link (ssh, sockets, install) shows through it, so a
// host may as well be "a unix socket path to a hub and its token"
// (Socket, for tests and for a hub on the same machine).
//
// It imports hub and hub/client only; app wires it (the registry's
// persistence, the host_changed announcer, the API's Services.Hosts).
package hosts
