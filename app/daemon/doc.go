// Package daemon starts `switchboard serve` detached from the terminal
// or ssh connection that asked for it (`serve --daemon`, how a host's hub
// is started over the link, ADR 0045): a new session (setsid), stdin
// from /dev/null, its output appended to <data-dir>/hub.log (0600). The
// data dir's lock keeps one hub per data dir and hub.json holds its pid:
// asked again while one runs, Start reports that one and starts nothing.
package daemon

// LogFile is the daemon's output, in its data dir.
const LogFile = "hub.log"
