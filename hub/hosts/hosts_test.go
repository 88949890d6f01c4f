package hosts

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

func TestCheckHostNameAndSSH(t *testing.T) {
	for _, n := range []string{"box", "dev-1", "a", strings.Repeat("x", 32)} {
		if err := hub.CheckHostName(n); err != nil {
			t.Errorf("%q refused: %v", n, err)
		}
	}
	for _, n := range []string{"", "local", "Box", "a_b", "a.b", strings.Repeat("x", 33), "é"} {
		if err := hub.CheckHostName(n); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
	for _, s := range []string{"box", "me@dev.example.com", "me@10.0.0.2:2222", "[::1]"} {
		if err := hub.CheckHostSSH(s); err != nil {
			t.Errorf("%q refused: %v", s, err)
		}
	}
	for _, s := range []string{"", "-oProxyCommand=sh", "-F/tmp/x", "a b", "a\nb", strings.Repeat("x", 256)} {
		err := hub.CheckHostSSH(s)
		if err == nil || hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%q: %v, want INVALID_ARGUMENT", s, err)
		}
	}
}

func TestCompareVersionsAndPlatform(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.2.0", "1.10.0", -1}, {"v2.0", "1.9.9", 1}, {"1.2", "1.2.0", 0}, {"dev", "1.0", 0}, {"1.0-rc1", "1.0", 0}} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for in, want := range map[string]string{"Linux x86_64": "linux/amd64", "Linux aarch64": "linux/arm64", "Darwin arm64": "", "Linux riscv64": "", "": ""} {
		os, arch, ok := platform(in)
		got := ""
		if ok {
			got = os + "/" + arch
		}
		if got != want {
			t.Errorf("platform(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKnownHostFingerprint(t *testing.T) {
	// As `ssh-keygen -lf` printed it for this key.
	line := "[10.0.0.2]:22 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILJDizN0uZHI3Zo8rzBU8pyugSHpuxJFoCetcxfLZ0m8"
	if got, want := knownHostFingerprint(line), "SHA256:JaDOu6X8t6LcxBCmmXYkQy8heGfh+c4aWcR4ZrXRxAI"; got != want {
		t.Errorf("fingerprint %q, want %q", got, want)
	}
	if knownHostFingerprint("garbage") != "" {
		t.Error("a line without a key has a fingerprint")
	}
}

// fakeLink is a Link the registry dials in tests.
type fakeLink struct{ *status }

func (fakeLink) Connect(string) {}
func (f fakeLink) Close() error { f.set(hub.HostStateUnreachable, "closed", "", nil, nil); return nil }

func TestRegistry(t *testing.T) {
	var mu sync.Mutex
	var saved map[string]string
	var announced []hub.Host
	r := New(Options{Dir: t.TempDir(), Version: "1.0",
		Save: func(_ context.Context, m map[string]string) error { mu.Lock(); saved = m; mu.Unlock(); return nil },
		Dial: func(e Entry, _ string, on func(hub.Host)) Link {
			l := fakeLink{newStatus(e.Name, e.SSH, on)}
			l.set(hub.HostConnected, "", "", nil, func(h *hub.Host) { h.Version = "1.0" })
			return l
		},
		Announce: func(h hub.Host) { mu.Lock(); announced = append(announced, h); mu.Unlock() },
	})
	ctx := context.Background()
	if _, err := r.AddHost(ctx, "box", "me@box"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddHost(ctx, "box", "other"); hub.ErrorCode(err) != hub.CodeConflict {
		t.Errorf("a name taken: %v, want CONFLICT", err)
	}
	if _, err := r.AddHost(ctx, "evil", "-oProxyCommand=x"); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("an option as ssh: %v, want INVALID_ARGUMENT", err)
	}
	list, _ := r.ListHosts(ctx)
	if len(list) != 2 || list[0].Name != hub.LocalHost || list[0].State != hub.HostConnected || list[1].Name != "box" || list[1].State != hub.HostConnected {
		t.Fatalf("list: %+v", list)
	}
	mu.Lock()
	if saved["box"] != "me@box" || len(announced) == 0 || announced[len(announced)-1].Name != "box" {
		t.Errorf("saved %v, announced %+v", saved, announced)
	}
	mu.Unlock()
	if r.Link("box") == nil || r.Link(hub.LocalHost) != nil {
		t.Error("Link: box has none, or local has one")
	}
	if err := r.RemoveHost(ctx, hub.LocalHost); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Errorf("removing local: %v", err)
	}
	if err := r.RemoveHost(ctx, "nope"); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Errorf("removing an unknown host: %v", err)
	}
	l := r.Link("box")
	if err := r.RemoveHost(ctx, "box"); err != nil {
		t.Fatal(err)
	}
	if l.Host().State != hub.HostStateUnreachable || r.Link("box") != nil || len(saved) != 0 {
		t.Errorf("after removal: link %+v, saved %v", l.Host(), saved)
	}
	// A config edit (Apply) adds and changes hosts as well.
	r.Apply(map[string]string{"a": "x@a", "b": "-bad"})
	if r.Link("a") == nil || r.Link("b") != nil {
		t.Error("Apply: a missing or b (a bad ssh value) dialled")
	}
}

// A link connected until lately retries at most recentRetry apart for
// recentlyDown after its connection ended, then as its backoff says; one
// never connected follows the backoff from the start (ADR 0054).
func TestRetryDelayAfterARecentConnection(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	steps := func(upUntil time.Time, times ...time.Time) []time.Duration {
		b := client.Backoff{Min: 500 * time.Millisecond, Max: 30 * time.Second}
		var out []time.Duration
		for _, now := range times {
			out = append(out, retryDelay(&b, upUntil, now))
		}
		return out
	}
	var times []time.Time
	for i := range 8 {
		times = append(times, at.Add(time.Duration(i)*10*time.Second))
	}
	got := steps(at, times...)
	want := []time.Duration{500 * time.Millisecond, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("within %s of the link's end: %v, want %v", recentlyDown, got, want)
	}
	later := []time.Time{at.Add(recentlyDown), at.Add(recentlyDown + time.Minute)}
	if got := steps(at, append(times, later...)...)[len(times):]; !slices.Equal(got, []time.Duration{30 * time.Second, 30 * time.Second}) {
		t.Fatalf("%s after the link's end: %v, want the backoff's 30 s", recentlyDown, got)
	}
	if got := steps(time.Time{}, times[:7]...); !slices.Equal(got, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second}) {
		t.Fatalf("never connected: %v, want the backoff as it is", got)
	}
}

// Within recentlyDown of the link's end, an attempt waits
// recentConnectTimeout for ssh's connection while the one before it did
// not reach the host; after one that reached it (a slow handshake), and
// later, and for a link never connected, the full one (ADR 0055).
func TestAttemptTimeoutAfterARecentConnection(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	timedOut := errors.New("ssh: connect to host 10.0.0.2 port 22: Connection timed out")
	noRoute := errors.New("ssh: connect to host box port 22: No route to host")
	banner := errors.New("Connection timed out during banner exchange")
	for _, c := range []struct {
		upUntil, now time.Time
		last         error
		want         int
	}{
		{at, at.Add(time.Second), nil, recentConnectTimeout},
		{at, at.Add(time.Minute), timedOut, recentConnectTimeout},
		{at, at.Add(time.Minute), noRoute, recentConnectTimeout},
		{at, at.Add(time.Minute), banner, connectTimeout},
		{at, at.Add(time.Minute), errNetworkChanged, recentConnectTimeout},
		{at, at.Add(recentlyDown), timedOut, connectTimeout},
		{time.Time{}, at, nil, connectTimeout},
		{time.Time{}, at, timedOut, connectTimeout},
	} {
		if got := attemptTimeout(c.upUntil, c.now, c.last); got != c.want {
			t.Errorf("%s after the link's end (up until %v), the last attempt's error %v: %d s, want %d", c.now.Sub(c.upUntil), c.upUntil, c.last, got, c.want)
		}
	}
}

// The hub's log says where a link settled and why, once per new state or
// reason: not each attempt of a link down (one a second), not connecting.
func TestLinkLogsWhereItSettles(t *testing.T) {
	var buf bytes.Buffer
	l := &sshLink{o: SSHOptions{Logger: slog.New(slog.NewTextHandler(&buf, nil))}}
	refused := "ssh: connect to host 127.0.0.1 port 2222: Connection refused"
	for _, h := range []hub.Host{
		{Name: "box", State: hub.HostConnecting},
		{Name: "box", State: hub.HostStateUnreachable, Error: refused},
		{Name: "box", State: hub.HostConnecting},
		{Name: "box", State: hub.HostStateUnreachable, Error: refused},
		{Name: "box", State: hub.HostNeedsAttention, Error: "REMOTE HOST IDENTIFICATION HAS CHANGED"},
		{Name: "box", State: hub.HostConnecting},
		{Name: "box", State: hub.HostConnected},
		{Name: "box", State: hub.HostStateUnreachable, Error: refused},
	} {
		l.logState(h)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{"state=unreachable", "state=needs_attention", "state=connected", "state=unreachable"}
	if len(lines) != len(want) {
		t.Fatalf("logged %d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], "host=box") || !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want host=box and %s", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[0], "Connection refused") {
		t.Errorf("the reason is not logged: %q", lines[0])
	}
}
