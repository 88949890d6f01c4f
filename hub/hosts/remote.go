package hosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// The remote side (ADR 0045): switchboard-headless in the remote user's
// home, run as a daemon (`serve --daemon --socket`: detached from the ssh
// connection, its data dir's lock and hub.json's pid keep it one), its
// API on a unix socket in a 0700 folder, its token read over the control
// master into memory.

// Remote paths under the remote $HOME.
const (
	remoteBase = ".local/share/switchboard"
	remoteBin  = remoteBase + "/bin/switchboard-headless"
	remoteData = remoteBase + "/data"
	remoteSock = remoteBase + "/run/hub.sock"
)

// remote is what prepareRemote learnt: the socket to forward, the token
// and the link secret (moved into the client at once), a note for the
// user.
type remote struct {
	socket, token, linkSecret, note string
}

// Exit codes of the install script, each a reason to name.
const (
	exitNoHome  = 10
	exitNoWrite = 11
	exitNoExec  = 12
)

// prepareRemote finds the platform, installs this version when the host
// has none or an older one, starts the hub (or finds it running), and
// reads its token.
func (l *sshLink) prepareRemote(ctx context.Context) (*remote, error) {
	out, err := l.control(ctx, nil, `uname -sm; printf '%s\n' "$HOME"`)
	if err != nil {
		return nil, fmt.Errorf("running a command on the host: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "/") {
		return nil, &attention{msg: fmt.Sprintf("the host gave no home folder (uname and $HOME: %q)", out)}
	}
	goos, goarch, ok := platform(lines[0])
	if !ok {
		return nil, &attention{msg: fmt.Sprintf("the host runs %s: Switchboard runs hosts on Linux x86_64 and aarch64 only", strings.TrimSpace(lines[0]))}
	}
	home := lines[1]
	bin, data, sock := home+"/"+remoteBin, home+"/"+remoteData, home+"/"+remoteSock
	r := &remote{socket: sock}

	installed := l.remoteVersion(ctx, bin)
	switch c := compareVersions(installed, l.o.Version); {
	case installed != "" && c > 0:
		return nil, &attention{msg: fmt.Sprintf("the host has Switchboard %s, newer than this one (%s): update Switchboard here", installed, l.o.Version)}
	case installed != l.o.Version:
		if err := l.install(ctx, goos, goarch, bin); err != nil {
			return nil, err
		}
	}
	l.set(hub.HostConnecting, "", "starting the hub on the host", nil, nil)
	if out, err := l.control(ctx, nil, q(bin)+" serve --daemon --socket "+q(sock)+" --data-dir "+q(data)); err != nil {
		return nil, &attention{msg: fmt.Sprintf("starting the hub on the host: %v %s", err, strings.TrimSpace(string(out)))}
	}
	if out, err := l.control(ctx, nil, `command -v loginctl >/dev/null 2>&1 && loginctl show-user "$(id -un)" -p Linger 2>/dev/null`); err == nil &&
		strings.TrimSpace(string(out)) == "Linger=no" {
		r.note = "logind ends this host's hub when you log out there: run `loginctl enable-linger` on the host to keep it running"
	}
	tok, err := l.control(ctx, nil, "cat "+q(data+"/token"))
	if err != nil || len(strings.TrimSpace(string(tok))) == 0 {
		return nil, fmt.Errorf("reading the host hub's token: %v", err)
	}
	r.token = strings.TrimSpace(string(tok))
	// The proof that a decision came over a link (decidedBy link:<surface>,
	// hub/hostmirror); a hub too old to write one answers without it.
	if sec, err := l.control(ctx, nil, "cat "+q(data+"/link-secret")+" 2>/dev/null || true"); err == nil {
		r.linkSecret = strings.TrimSpace(string(sec))
	}
	return r, nil
}

// remoteVersion is the version switchboard-headless at bin prints, ""
// when there is none (or it does not run).
func (l *sshLink) remoteVersion(ctx context.Context, bin string) string {
	out, err := l.control(ctx, nil, q(bin)+" version 2>/dev/null || true")
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	v, ok := strings.CutPrefix(first, "switchboard ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

// install copies this machine's switchboard-headless for goos/goarch to
// bin on the host (a new file, checked to run, then renamed over the old
// one: a running hub keeps its program), naming why when it cannot.
func (l *sshLink) install(ctx context.Context, goos, goarch, bin string) error {
	if l.o.Headless == nil {
		return &attention{msg: "this Switchboard cannot install itself on hosts (no switchboard-headless beside it)"}
	}
	local, err := l.o.Headless(goos, goarch)
	if err != nil {
		return &attention{msg: fmt.Sprintf("no switchboard-headless for %s/%s here: %v", goos, goarch, err)}
	}
	f, err := os.Open(local)
	if err != nil {
		return &attention{msg: "installing on the host: " + err.Error()}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		l.set(hub.HostConnecting, "", fmt.Sprintf("installing Switchboard %s on the host (%.1f MiB)", l.o.Version, float64(fi.Size())/(1<<20)), nil, nil)
	}
	dir := bin[:strings.LastIndex(bin, "/")]
	script := fmt.Sprintf(`umask 077; [ -d "$HOME" ] && [ -w "$HOME" ] || exit %d; mkdir -p %s 2>/dev/null && cat > %s.new || exit %d; chmod 0755 %s.new && %s.new version >/dev/null 2>&1 || { rm -f %s.new; exit %d; }; mv -f %s.new %s`,
		exitNoHome, q(dir), q(bin), exitNoWrite, q(bin), q(bin), q(bin), exitNoExec, q(bin), q(bin))
	_, err = l.control(ctx, f, script)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		switch ee.ExitCode() {
		case exitNoHome:
			return &attention{msg: "cannot install on the host: its home folder is missing or not writable"}
		case exitNoWrite:
			return &attention{msg: "cannot install on the host: " + dir + " cannot be made or written"}
		case exitNoExec:
			return &attention{msg: "cannot install on the host: programs in " + dir + " do not run (a noexec mount?)"}
		}
	}
	if err != nil {
		return fmt.Errorf("installing on the host: %w", err)
	}
	return nil
}

// platform maps `uname -sm` to the build to install.
func platform(uname string) (goos, goarch string, ok bool) {
	f := strings.Fields(uname)
	if len(f) != 2 || f[0] != "Linux" {
		return "", "", false
	}
	switch f[1] {
	case "x86_64", "amd64":
		return "linux", "amd64", true
	case "aarch64", "arm64":
		return "linux", "arm64", true
	}
	return "", "", false
}

// compareVersions compares dotted versions (a leading v and a -suffix
// ignored) number by number: -1, 0 or 1; 0 too when either does not
// parse (a dev build), so a dev build is never taken for newer.
func compareVersions(a, b string) int {
	pa, oka := versionParts(a)
	pb, okb := versionParts(b)
	if !oka || !okb {
		return 0
	}
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x > y {
				return 1
			}
			return -1
		}
	}
	return 0
}

func versionParts(v string) ([]int, bool) {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "-")
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}

// q quotes s for the remote POSIX shell.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
