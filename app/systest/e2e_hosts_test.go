//go:build linux

package systest

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// One window for every host (issue 30, hub/hostmirror), through the real
// binaries: a local hub linked to a second hub (the "host", its own data
// dir and token) through a TCP relay the test can cut, named by the
// interim link file (<data-dir>/hosts/box/link.json). A thread created on
// the host from the local API runs there; its events reach the local hub
// as copies, exactly once across a cut mid-turn; a permission asked there
// is decided here and recorded there as "link:…"; with the link down a
// call answers 502 HOST_UNREACHABLE; a permission asked meanwhile appears
// here once the link is back; search and export see the host's thread.
func TestE2EHostMirror(t *testing.T) {
	bins := buildE2E(t)
	relay := newRelay(t)
	// The host's hub is asked for by the relay's address (a link's own
	// Host is the link's business: hub/hostmirror.FileLink).
	remote := newHub(t, bins, hubConfig{"allowedHosts": []string{relay.addr()}})
	relay.setTarget(strings.TrimPrefix(remote.url, "http://"))
	local := prepareHub(t, bins, hubConfig{})
	writeLink(t, local.dataDir, "box", "http://"+relay.addr(), remote.dataDir)
	local.start()

	// The thread is made on the host, from the local API, once linked.
	cwd := t.TempDir()
	var created struct{ Thread hostThread }
	if !waitFor(30*time.Second, func() bool {
		r := local.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": cwd, "host": "box"})
		if r.status == 201 {
			r.decode(t, &created)
			return true
		}
		return false
	}) {
		t.Fatalf("no thread on host box within 30s: %s", local.do("POST", "/v1/threads", map[string]string{"agent": "fake", "cwd": cwd, "host": "box"}))
	}
	th := created.Thread
	remoteID, ok := strings.CutSuffix(th.ID, "@box")
	if !ok || th.Host != "box" || strings.Contains(remoteID, "@") {
		t.Fatalf("created %+v: want <id>@box with host box", th)
	}
	if got := remote.thread(remoteID); got.Cwd != cwd || got.Agent != "fake" {
		t.Fatalf("on the host: %+v", got)
	}
	if got := local.thread(th.ID); got.ID != th.ID {
		t.Fatalf("the copy: %+v", got)
	}

	t.Run("FoldersAndAgents", func(t *testing.T) {
		local := local.withT(t)
		var l struct {
			Path    string
			Folders []struct{ Name, Path string }
		}
		local.call("GET", "/v1/hosts/box/folders?path="+filepath.Dir(cwd), nil, 200, &l)
		found := false
		for _, f := range l.Folders {
			found = found || f.Path == cwd
		}
		if l.Path != filepath.Dir(cwd) || !found {
			t.Fatalf("host box's folders of %s: %+v, want %s among them", filepath.Dir(cwd), l, cwd)
		}
		var a struct{ Agents []struct{ ID string } }
		local.call("GET", "/v1/hosts/box/agents", nil, 200, &a)
		if len(a.Agents) == 0 || a.Agents[0].ID == "" {
			t.Fatalf("host box's agents: %+v", a)
		}
		local.call("GET", "/v1/hosts/nope/folders", nil, 404, nil)
		local.call("GET", "/v1/hosts/box/folders?path=relative/dir", nil, 400, nil)
	})

	t.Run("CutMidTurnCatchesUpOnce", func(t *testing.T) {
		local, remote := local.withT(t), remote.withT(t)
		events := local.mustSSE("GET", "/v1/events?scope=all", nil)
		defer events.close()
		turn := local.startTurn(th.ID, "ticks 30 15")
		if !strings.HasSuffix(turn.ID, "@box") {
			t.Fatalf("turn %+v: want a host id", turn)
		}
		events.until(30*time.Second, isType("message_delta", turn.ID))
		relay.cut()
		remote.waitTurn(remoteID, strings.TrimSuffix(turn.ID, "@box"), 30*time.Second)
		relay.restore()
		events.until(30*time.Second, isType("turn_completed", turn.ID))
		checkCopies(t, copies(t, local, th.ID), copies(t, remote, remoteID))
		if lt, rt := local.turn(th.ID, turn.ID), remote.turn(remoteID, strings.TrimSuffix(turn.ID, "@box")); lt.Output != rt.Output || lt.Status != "completed" {
			t.Fatalf("the copy's turn %q %s, the host's %q", lt.Output, lt.Status, rt.Output)
		}
	})

	t.Run("DecisionOverTheLink", func(t *testing.T) {
		local, remote := local.withT(t), remote.withT(t)
		turn := local.startTurn(th.ID, "permission")
		p := local.waitPermission(turn.ID, 30*time.Second)
		if !strings.HasSuffix(p.ID, "@box") || p.ThreadID != th.ID {
			t.Fatalf("permission %+v: want a host id on the copy's thread", p)
		}
		var res struct{ Permission hostPermission }
		local.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, &res)
		if res.Permission.ID != p.ID || res.Permission.Host != "box" || res.Permission.Status != "approved" {
			t.Fatalf("decided %+v", res.Permission)
		}
		if got := remote.permission(strings.TrimSuffix(p.ID, "@box")); got.DecidedBy != "link:client:alice" {
			t.Fatalf("on the host: decidedBy %q, want link:client:alice", got.DecidedBy)
		}
		if r := local.do("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "declined"}); r.status != 409 {
			t.Fatalf("a second answer: %s, want 409 (first answer wins)", r)
		}
		local.waitTurn(th.ID, turn.ID, 30*time.Second)
		if !waitFor(10*time.Second, func() bool { return local.permission(p.ID).DecidedBy == "link:client:alice" }) {
			t.Fatalf("the copy says %+v", local.permission(p.ID))
		}
	})

	t.Run("LinkSecretIsNotGuessed", func(t *testing.T) {
		remote := remote.withT(t)
		turn := remote.startTurn(remoteID, "permission")
		p := remote.waitPermission(turn.ID, 30*time.Second)
		remote.call("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}, 200, nil,
			"X-Switchboard-Link", strings.Repeat("0", 64), "X-Switchboard-Link-Surface", "window")
		if got := remote.permission(p.ID).DecidedBy; got != "client:alice" {
			t.Fatalf("a token holder without the link secret decided as %q", got)
		}
		remote.waitTurn(remoteID, turn.ID, 30*time.Second)
	})

	t.Run("LinkDown", func(t *testing.T) {
		local, remote := local.withT(t), remote.withT(t)
		relay.cut()
		var r reply
		if !waitFor(30*time.Second, func() bool {
			r = local.do("POST", "/v1/threads/"+th.ID+"/turns", map[string]string{"input": "echo hi"})
			return r.status == 502
		}) {
			t.Fatalf("with the link cut: %s, want 502", r)
		}
		var body struct {
			Error struct {
				Code    string
				Details map[string]any
			}
		}
		r.decode(t, &body)
		if body.Error.Code != "UPSTREAM_UNAVAILABLE" || body.Error.Details["reason"] != "HOST_UNREACHABLE" || body.Error.Details["host"] != "box" {
			t.Fatalf("with the link cut: %s", r)
		}
		// Asked while the link is down: pending there, shown here once back.
		turn := remote.startTurn(remoteID, "permission")
		p := remote.waitPermission(turn.ID, 30*time.Second)
		if r := local.do("POST", "/v1/permissions/"+p.ID+"@box", map[string]string{"outcome": "approved"}); r.status != 502 && r.status != 404 {
			t.Fatalf("deciding with the link cut: %s", r)
		}
		relay.restore()
		copyP, ok := waitFirst(30*time.Second, func() []apiPermission { return local.permissions("pending") },
			func(c apiPermission) bool { return c.ID == p.ID+"@box" })
		if !ok || copyP.Deadline != p.Deadline {
			t.Fatalf("the permission asked while cut: %+v, want pending with the host's deadline %s", copyP, p.Deadline)
		}
		local.call("POST", "/v1/permissions/"+copyP.ID, map[string]string{"outcome": "approved"}, 200, nil)
		remote.waitTurn(remoteID, turn.ID, 30*time.Second)
		if got := remote.permission(p.ID).DecidedBy; got != "link:client:alice" {
			t.Fatalf("on the host: %q", got)
		}
	})

	t.Run("SearchAndExport", func(t *testing.T) {
		local := local.withT(t)
		turn := local.startTurn(th.ID, "echo zanzibarquux")
		local.waitTurn(th.ID, turn.ID, 30*time.Second)
		var page struct {
			Hits []struct {
				ThreadID string `json:"threadId"`
			} `json:"hits"`
		}
		if !waitFor(10*time.Second, func() bool {
			local.call("GET", "/v1/search?q=zanzibarquux", nil, 200, &page)
			return len(page.Hits) > 0
		}) || page.Hits[0].ThreadID != th.ID {
			t.Fatalf("search: %+v", page)
		}
		r := local.call("GET", "/v1/threads/"+th.ID+"/export?format=md", nil, 200, nil)
		if !strings.Contains(string(r.body), "zanzibarquux") {
			t.Fatalf("export has not the host's text:\n%s", tail(string(r.body), 2048))
		}
	})
	t.Run("LocalRestartKeepsCopies", func(t *testing.T) {
		remote := remote.withT(t)
		turn := local.withT(t).startTurn(th.ID, "permission")
		p := local.withT(t).waitPermission(turn.ID, 30*time.Second)
		local.stop()
		local.start()
		local := local.withT(t)
		// The restarted hub's recovery leaves the copy alone: still pending,
		// as it is on the host; the link resumes without a copy twice.
		if got := local.permission(p.ID); got.Status != "pending" {
			t.Fatalf("after a restart the copy is %s", got.Status)
		}
		if !waitFor(30*time.Second, func() bool {
			return local.do("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}).status == 200
		}) {
			t.Fatalf("deciding after the restart: %s", local.do("POST", "/v1/permissions/"+p.ID, map[string]string{"outcome": "approved"}))
		}
		remote.waitTurn(remoteID, strings.TrimSuffix(turn.ID, "@box"), 30*time.Second)
		local.waitTurn(th.ID, turn.ID, 30*time.Second)
		checkCopies(t, copies(t, local, th.ID), copies(t, remote, remoteID))
	})

	t.Run("EditorBridgeToHost", func(t *testing.T) {
		remote := remote.withT(t)
		b := startBridge(t, bins, local, "fake", "--host", "box", "--start-hub=false")
		b.mustInitialize(t)
		dir := t.TempDir()
		sid := b.newSession(t, dir)
		rid, ok := strings.CutSuffix(sid, "@box")
		if !ok {
			t.Fatalf("session %s: want a thread on box", sid)
		}
		if th := remote.thread(rid, asEditor...); th.Cwd != dir || th.Agent != "fake" {
			t.Fatalf("on box: %+v", th)
		}
		ups := b.mustPrompt(t, sid, "echo from the box", sdk.StopReasonEndTurn)
		if got := agentText(ups); got != "from the box" {
			t.Fatalf("the editor got %q (updates %v)", got, kinds(ups))
		}
	})
}

// hostThread and hostPermission are a thread and a permission with host.
type hostThread struct {
	apiThread
	Host string `json:"host"`
}

type hostPermission struct {
	apiPermission
	Host string `json:"host"`
}

// hostEvent is a stored event as copies carry it.
type hostEvent struct {
	Seq         int64  `json:"seq"`
	Type        string `json:"type"`
	Text        string `json:"text"`
	Host        string `json:"host"`
	HostSeq     int64  `json:"hostSeq"`
	HostSeqFrom int64  `json:"hostSeqFrom"` // joined deltas: the first one's seq (ADR 0056)
}

// caughtUp reports whether mine, copies of a thread's events, reach the
// last of theirs, the host's own (copies are stored in the host's order).
func caughtUp(mine, theirs []hostEvent) bool {
	return len(mine) > 0 && len(theirs) > 0 && mine[len(mine)-1].HostSeq == theirs[len(theirs)-1].Seq
}

// checkCopies fails t unless mine, box's copies of a thread's events,
// hold theirs, box's own, each exactly once and in order: a copy holds
// one event (its hostSeq) or box's deltas of one type from its hostSeqFrom
// to its hostSeq, their text joined; local seqs rise.
func checkCopies(t testing.TB, mine, theirs []hostEvent) {
	t.Helper()
	if len(theirs) == 0 {
		t.Fatal("the host logged no event")
	}
	i := 0
	var last int64
	for k, m := range mine {
		from := m.HostSeq
		if m.HostSeqFrom > 0 {
			from = m.HostSeqFrom
		}
		var text strings.Builder
		start := i
		for ; i < len(theirs) && theirs[i].Seq <= m.HostSeq; i++ {
			if h := theirs[i]; h.Seq < from || h.Type != m.Type {
				t.Fatalf("copy %d %+v: the host's event %+v is in none", k, m, h)
			}
			text.WriteString(theirs[i].Text)
		}
		if i == start || theirs[i-1].Seq != m.HostSeq || text.String() != m.Text || m.Host != "box" {
			t.Fatalf("copy %d %+v holds not the host's events %+v", k, m, theirs[start:i])
		}
		if m.Seq <= last {
			t.Fatalf("copy %d has local seq %d after %d", k, m.Seq, last)
		}
		last = m.Seq
	}
	if i != len(theirs) {
		t.Fatalf("%d copies hold %d of the host's %d events: not %+v", len(mine), i, len(theirs), theirs[i:])
	}
}

// copies lists a thread's stored events, every turn's, in order.
func copies(t testing.TB, h *hubProc, threadID string) []hostEvent {
	t.Helper()
	var r struct {
		Turns []struct{ Events []hostEvent }
	}
	h.call("GET", "/v1/threads/"+threadID+"/history?includeEvents=true", nil, 200, &r)
	var out []hostEvent
	for _, tu := range r.Turns {
		out = append(out, tu.Events...)
	}
	return out
}

// writeLink names host name's hub for the hub on dataDir (the interim link
// file, hub/hostmirror.FileLink): reached at url, its token and link
// secret read from its data dir.
func writeLink(t *testing.T, dataDir, name, url, hostDataDir string) {
	t.Helper()
	dir := filepath.Join(dataDir, "hosts", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"url": url,
		"tokenFile": filepath.Join(hostDataDir, "token"), "linkSecretFile": filepath.Join(hostDataDir, "link-secret")})
	if err := os.WriteFile(filepath.Join(dir, "link.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// relay forwards TCP connections to a hub; cut closes every one and
// refuses the next until restore, as a link that drops.
type relay struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func newRelay(t *testing.T) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); r.cut() })
	go r.serve()
	return r
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) setTarget(target string) {
	r.mu.Lock()
	r.target = target
	r.mu.Unlock()
}

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		down := r.down
		if !down {
			r.conns[c] = true
		}
		r.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go r.pipe(c)
	}
}

func (r *relay) pipe(c net.Conn) {
	r.mu.Lock()
	target := r.target
	r.mu.Unlock()
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	r.mu.Lock()
	if r.down {
		r.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	r.conns[up] = true
	r.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

func (r *relay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = true
	for c := range r.conns {
		c.Close()
	}
	clear(r.conns)
}

func (r *relay) restore() {
	r.mu.Lock()
	r.down = false
	r.mu.Unlock()
}
