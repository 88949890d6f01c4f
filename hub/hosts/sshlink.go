package hosts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// SSHOptions say how the hub's links use the system ssh.
type SSHOptions struct {
	// Program is the ssh program ("" = "ssh" on PATH).
	Program string
	// ConfigFile is passed as -F when set (tests: never the user's
	// ~/.ssh); "" = the user's own ssh config.
	ConfigFile string
	// Version is this hub's version: the remote hub's must match.
	Version string
	// Headless returns this machine's switchboard-headless built for the
	// remote's goos/goarch (from `uname -sm`), to install there; an error
	// names why there is none.
	Headless func(goos, goarch string) (string, error)
	// Backoff between attempts (zero: client.DefaultBackoff capped at 30 s).
	Backoff client.Backoff
	// Logger (nil: discard).
	Logger *slog.Logger
}

// Files of a host's folder (<data-dir>/hosts/<name>, 0700).
const (
	ControlSocket = "cm.sock"  // the ssh control master
	HubSocket     = "hub.sock" // the remote hub's API, forwarded
)

// SSH is Options.Dial for links over the system ssh (ADR 0045).
func SSH(o SSHOptions) func(e Entry, dir string, onChange func(hub.Host)) Link {
	if o.Program == "" {
		o.Program = "ssh"
	}
	if o.Backoff.Min == 0 {
		o.Backoff = client.Backoff{Min: 500 * time.Millisecond, Max: 30 * time.Second}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return func(e Entry, dir string, onChange func(hub.Host)) Link {
		ctx, cancel := context.WithCancel(context.Background())
		l := &sshLink{o: o, dir: dir, ctx: ctx, cancel: cancel, kick: make(chan string, 1), done: make(chan struct{})}
		l.status = newStatus(e.Name, e.SSH, func(h hub.Host) {
			l.logState(h)
			if onChange != nil {
				onChange(h)
			}
		})
		l.net, l.unsubscribe = netChanges.subscribe()
		go l.run()
		return l
	}
}

// sshLink is one host's link: a goroutine that connects, waits for the
// connection to end and connects again with backoff, until Close.
type sshLink struct {
	*status
	o      SSHOptions
	dir    string
	ctx    context.Context
	cancel context.CancelFunc
	kick   chan string // Connect: connect now, trusting this fingerprint
	done   chan struct{}
	// net receives after the machine's network changed (netwatch.go);
	// unsubscribe ends that, at Close.
	net         <-chan struct{}
	unsubscribe func()
	// byNet: the attempt under way was started because the network
	// changed, so another change does not cut it short. Owned by run.
	byNet bool

	mu     sync.Mutex
	master *exec.Cmd
	logged string // the state and error logged last (logState)
}

// logState logs the state the link settled in when it is another one, or
// the same with another reason: the user's log says when and why a host
// went down, needed attention or came back. Connecting, and the same
// failure again (a link down retries every second), are not logged.
func (l *sshLink) logState(h hub.Host) {
	if h.State == hub.HostConnecting {
		return
	}
	key := string(h.State) + "\x00" + h.Error
	l.mu.Lock()
	same := key == l.logged
	l.logged = key
	l.mu.Unlock()
	if same {
		return
	}
	l.o.Logger.Info("host link", "host", h.Name, "state", h.State, "error", h.Error, "note", h.Note)
}

// attention is a failure the user must act on: not retried by itself.
type attention struct {
	msg, fingerprint string
}

func (a *attention) Error() string { return a.msg }

func (l *sshLink) Connect(trustKey string) {
	select {
	case l.kick <- trustKey:
	default:
	}
}

// Close ends the link: the master (and with it the forward), the
// sockets and the token, which lived only in the client.
func (l *sshLink) Close() error {
	l.cancel()
	l.unsubscribe()
	<-l.done
	os.Remove(filepath.Join(l.dir, HubSocket))
	os.Remove(filepath.Join(l.dir, ControlSocket))
	return nil
}

// A link that was connected until lately tries again at least every
// recentRetry for recentlyDown after its connection ended, whatever its
// backoff says (ADR 0054): a laptop's network back after a minute or two
// finds its hosts within seconds, not after a 30 s step of the backoff. A
// host down for longer is tried as the backoff says (up to 30 s apart).
//
// In that time an attempt waits recentConnectTimeout for ssh's connection,
// not connectTimeout, as long as the one before it failed to reach the
// host at all (ADR 0055): on a path that drops packets during a cut, the
// attempt in flight when the network returns sends its next SYN only 1,
// 3, 7 s after its start, so short attempts close to each other meet the
// network within about two seconds. An attempt that reached the host but
// failed later (a slow handshake through a jump host) is followed by one
// with the full connectTimeout, which also covers the handshake.
const (
	recentlyDown         = 5 * time.Minute
	recentRetry          = time.Second
	connectTimeout       = 15 // seconds, ssh's ConnectTimeout
	recentConnectTimeout = 3
)

// retryDelay is the wait before the next attempt at now: b's next step,
// capped at recentRetry within recentlyDown of upUntil (when the link's
// last connection ended; zero: never connected).
func retryDelay(b *client.Backoff, upUntil, now time.Time) time.Duration {
	d := b.Next()
	if recently(upUntil, now) {
		return min(d, recentRetry)
	}
	return d
}

// attemptTimeout is ssh's ConnectTimeout (seconds) for an attempt at now,
// upUntil when the link's last connection ended (zero: never connected),
// last the error of the attempt before it (nil: none since the link was
// up).
func attemptTimeout(upUntil, now time.Time, last error) int {
	if recently(upUntil, now) && (last == nil || unreached(last)) {
		return recentConnectTimeout
	}
	return connectTimeout
}

// unreached reports whether err, an attempt's, is ssh failing to open the
// TCP connection ("ssh: connect to host … port …: Connection timed out",
// "No route to host", "Network is unreachable"; a jump host's the same),
// or an attempt cut short by a network change before it connected.
func unreached(err error) bool {
	return errors.Is(err, errNetworkChanged) || strings.Contains(err.Error(), "connect to host ")
}

// recently reports whether now is within recentlyDown of upUntil.
func recently(upUntil, now time.Time) bool {
	return !upUntil.IsZero() && now.Sub(upUntil) < recentlyDown
}

func (l *sshLink) run() {
	defer close(l.done)
	b := l.o.Backoff
	trust := ""
	var upUntil time.Time // when the last connection ended
	var last error        // the last attempt's, since the link was last up
	var started time.Time // when the last attempt started
	for {
		l.set(hub.HostConnecting, "", "connecting over ssh", nil, nil)
		select {
		case <-l.net: // a change before this attempt: it takes the new path
		default:
		}
		started = time.Now()
		ended, err := l.connect(trust, attemptTimeout(upUntil, started, last))
		last = err
		l.byNet = false
		if errors.Is(err, errNetworkChanged) && l.ctx.Err() == nil {
			l.byNet = true
			continue // a new attempt at once, trusting the same key if this one did
		}
		trust = ""
		var wait <-chan time.Time
		var att *attention
		switch {
		case l.ctx.Err() != nil:
			return
		case errors.As(err, &att):
			l.set(hub.HostNeedsAttention, att.msg, "", nil, func(h *hub.Host) { h.Fingerprint = att.fingerprint })
			// Only the user moves it on (Connect).
		case err != nil:
			l.set(hub.HostStateUnreachable, err.Error(), "", nil, nil)
			wait = time.After(retryDelay(&b, upUntil, time.Now()))
		default:
			b.Reset()
			why := l.connected(ended)
			if l.ctx.Err() != nil {
				l.stopMaster()
				return
			}
			upUntil = time.Now()
			l.set(hub.HostStateUnreachable, why, "", nil, nil)
			wait = time.After(retryDelay(&b, upUntil, upUntil))
		}
	waiting:
		for {
			select {
			case <-l.ctx.Done():
				l.stopMaster()
				return
			case trust = <-l.kick:
				b.Reset()
			case <-wait:
			case <-l.net:
				if wait == nil { // needs the user (attention) or connected: not a retry
					continue
				}
				if gap := netRetryGap - time.Since(started); gap > 0 {
					wait = time.After(gap)
					continue
				}
				l.byNet = true
			}
			break waiting
		}
		l.stopMaster()
	}
}

// errNetworkChanged ends an attempt that was waiting for ssh's connection
// when the machine's network changed: the next one starts at once.
var errNetworkChanged = errors.New("the network changed: connecting again")

// connected waits while the link is up: until the master ends (or the
// link is closed), checking every 30 s whether an update that waits for
// the host's running turns can go ahead. It returns why the link ended.
func (l *sshLink) connected(ended <-chan struct{}) string {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			return "the ssh connection ended"
		case <-l.ctx.Done():
			return "closed"
		case <-tick.C:
			h, c := l.Host(), l.Client()
			if c == nil || h.Version == l.o.Version {
				continue
			}
			ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
			_, err := l.updateOlder(ctx, c, h.Version)
			cancel()
			if errors.Is(err, errRestarting) {
				l.stopMaster()
				<-ended
				return err.Error()
			}
		}
	}
}

// sshArgs are the options every ssh the link runs shares, then opts,
// then -- and the destination (refused if it starts with -, so ssh never
// reads it as an option) and the remote command. StrictHostKeyChecking
// is never "no": the user's setting holds, or accept-new for a key the
// user trusted (trust.go).
func (l *sshLink) sshArgs(opts []string, remote ...string) []string {
	a := []string{}
	if l.o.ConfigFile != "" {
		a = append(a, "-F", l.o.ConfigFile)
	}
	a = append(a, "-o", "BatchMode=yes", "-o", "ForwardAgent=no", "-o", "ForwardX11=no")
	if !slices.Contains(opts, "forward") { // the forwards of the user's config are not the link's
		a = append(a, "-o", "ClearAllForwardings=yes")
	}
	a = append(a, opts...)
	a = append(a, "--", l.host.SSH)
	return append(a, remote...)
}

// control runs a remote command over the control master: stdin in, its
// stdout back; an error carries its stderr.
func (l *sshLink) control(ctx context.Context, stdin io.Reader, remote string) ([]byte, error) {
	args := l.sshArgs([]string{"-o", "ControlMaster=no", "-o", "ControlPath=" + filepath.Join(l.dir, ControlSocket), "-T"}, remote)
	cmd := exec.CommandContext(ctx, l.o.Program, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func (l *sshLink) stopMaster() {
	l.mu.Lock()
	m := l.master
	l.master = nil
	l.mu.Unlock()
	if m != nil && m.Process != nil {
		m.Process.Kill()
	}
}

// connect makes the link once: the master, the remote hub installed and
// started, its token read, the forward, the proof. ended is closed when
// the master exits.
func (l *sshLink) connect(trustKey string, timeout int) (ended <-chan struct{}, err error) {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, &attention{msg: "cannot make " + l.dir + ": " + err.Error()}
	}
	os.Chmod(l.dir, 0o700)
	if trustKey != "" {
		if err := l.trust(trustKey); err != nil {
			return nil, err
		}
	}
	ended, err = l.startMaster(timeout)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(l.ctx, 2*time.Minute)
	defer cancel()
	r, err := l.prepareRemote(ctx)
	if err != nil {
		l.stopMaster()
		return nil, err
	}
	local := filepath.Join(l.dir, HubSocket)
	os.Remove(local)
	if err := l.forward(ctx, local, r.socket); err != nil {
		l.stopMaster()
		return nil, err
	}
	opts := linkClientOptions()
	opts.LinkSecret = r.linkSecret
	c := client.ForSocket(local, r.token, opts)
	r.token, r.linkSecret = "", ""
	v, err := c.HubVersion(ctx)
	if err != nil {
		l.stopMaster()
		return nil, fmt.Errorf("the hub on the host does not answer through the link (does its sshd allow forwarding? the link needs AllowTcpForwarding and AllowStreamLocalForwarding set to yes or local): %w", err)
	}
	note, err := l.updateOlder(ctx, c, v)
	if err != nil {
		l.stopMaster()
		return nil, err
	}
	if note == "" {
		note = r.note
	}
	l.set(hub.HostConnected, "", note, c, func(h *hub.Host) { h.Version = v })
	return ended, nil
}

// errRestarting: the older hub on the host was asked to stop, so that the
// next attempt (at once: the backoff's first step) starts the new one.
var errRestarting = errors.New("restarting the hub on the host with this version")

// updateOlder handles a running hub older than this one (its program on
// disk was replaced already): stopped once no turn runs there, else left
// running with a note saying the update waits. A hub of the same version
// or a dev build: nothing.
func (l *sshLink) updateOlder(ctx context.Context, c *client.Client, running string) (string, error) {
	if running == l.o.Version || compareVersions(running, l.o.Version) >= 0 {
		return "", nil
	}
	page, err := c.Threads(ctx, 200, "")
	if err != nil {
		return "", fmt.Errorf("reading the host's threads before updating its hub: %w", err)
	}
	busy := 0
	for _, t := range page.Threads {
		if t.Status == hub.ThreadRunning {
			busy++
		}
	}
	if busy > 0 {
		return fmt.Sprintf("Switchboard %s on the host is updated to %s once its %d running turn(s) end", running, l.o.Version, busy), nil
	}
	if err := c.Shutdown(ctx); err != nil {
		return "", fmt.Errorf("stopping the older hub on the host: %w", err)
	}
	return "", errRestarting
}

// startMaster starts `ssh -N` as the control master and waits until its
// control socket is there (connected and authenticated) or it exits;
// timeout is its ConnectTimeout in seconds.
func (l *sshLink) startMaster(timeout int) (<-chan struct{}, error) {
	cm := filepath.Join(l.dir, ControlSocket)
	os.Remove(cm)
	args := l.sshArgs([]string{"-N", "-o", "ControlMaster=yes", "-o", "ControlPath=" + cm, "-o", "ControlPersist=no",
		"-o", "ExitOnForwardFailure=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
		"-o", "ConnectTimeout=" + strconv.Itoa(timeout)})
	cmd := exec.Command(l.o.Program, args...)
	errb := &lockedBuffer{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		return nil, &attention{msg: "cannot run ssh: " + err.Error()}
	}
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	l.mu.Lock()
	l.master = cmd
	l.mu.Unlock()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			return nil, l.sshFailure(errb.String())
		case <-l.ctx.Done():
			return nil, l.ctx.Err()
		case <-l.net:
			// A path that came back since this attempt started is not the
			// one its SYNs took. One started because of a change runs on.
			if !l.byNet {
				l.stopMaster()
				<-ended
				return nil, errNetworkChanged
			}
		case <-tick.C:
			if _, err := os.Stat(cm); err == nil {
				return ended, nil
			}
		}
	}
}

// forward asks the master for the unix-socket forward of the remote
// hub's socket to local (one ssh channel per connection, no TCP port).
func (l *sshLink) forward(ctx context.Context, local, remote string) error {
	args := l.sshArgs([]string{"-o", "ControlPath=" + filepath.Join(l.dir, ControlSocket), "-O", "forward", "-L", local + ":" + remote})
	cmd := exec.CommandContext(ctx, l.o.Program, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("forwarding the hub's socket: %v: %s", err, strings.TrimSpace(string(out)))
	}
	os.Chmod(local, 0o600)
	return nil
}

// lockedBuffer is ssh's stderr, written by exec's copier and read here.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 64<<10 {
		return len(p), nil
	}
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
