//go:build linux

package systest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// e2eRegistryLazy: the hub asks the ACP registry only when a client lists
// the agents — not at start, not for other calls — once, then from its
// cached copy; restarted with the registry unreachable, the copy serves
// at once.
func e2eRegistryLazy(t *testing.T, bins e2eBins) {
	var hits atomic.Int32
	up := atomic.Bool{}
	up.Store(true)
	const logo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>`
	var doc []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".svg") && up.Load() {
			w.Write([]byte(logo))
			return
		}
		hits.Add(1)
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	// Logos: the registry's own agent's, and one for the built-in Claude
	// Code's npm package (found by its package, whatever the registry's id).
	doc, _ = json.Marshal(map[string]any{"version": "1.0.0", "agents": []any{
		map[string]any{"id": "lazyreg", "name": "Lazy registry agent", "version": "1.0.0", "description": "x", "icon": srv.URL + "/lazy.svg",
			"distribution": map[string]any{"npx": map[string]any{"package": "lazy-registry-agent@1.0.0"}}},
		map[string]any{"id": "claude-acp", "name": "Claude (registry)", "version": "1.0.0", "icon": srv.URL + "/claude.svg",
			"distribution": map[string]any{"npx": map[string]any{"package": "@agentclientprotocol/claude-agent-acp@0.100.0"}}},
	}})
	wantIcon := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(logo))
	h := newHub(t, bins, hubConfig{"registry": map[string]any{"url": srv.URL + "/registry.json"}})
	icons := func() {
		t.Helper()
		for _, id := range []string{"lazyreg", "claude"} {
			if got := h.agent(id).Icon; got != wantIcon {
				t.Errorf("%s's logo is %.60q, want the registry's as a data: URL", id, got)
			}
		}
	}
	listed := func() bool {
		var list struct{ Agents []apiAgent }
		h.call("GET", "/v1/agents", nil, 200, &list)
		for _, a := range list.Agents {
			if a.ID == "lazyreg" {
				return true
			}
		}
		return false
	}
	h.call("GET", "/v1/threads", nil, 200, nil)
	h.call("GET", "/v1/settings", nil, 200, nil)
	if n := hits.Load(); n != 0 {
		t.Fatalf("the hub asked the registry %d times before anyone listed the agents", n)
	}
	// The window's stream: the first listing is answered before the fetch
	// ends, so the hub says when the agents listed changed.
	global := h.mustSSE("GET", "/v1/events?scope=all", nil)
	listed()
	m := global.until(30*time.Second, func(m sseMsg) bool { return m.event == "agents_changed" })
	var changed struct{ Reason string }
	if err := json.Unmarshal([]byte(m[len(m)-1].data), &changed); err != nil || changed.Reason != "registry" {
		t.Errorf("agents_changed %s (%v), want reason registry", m[len(m)-1].data, err)
	}
	if !listed() {
		t.Fatal("after agents_changed the registry's agent is not listed")
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the registry was asked %d times, want once", n)
	}
	icons()

	// Restarted, the registry and its logos down: the cached copy, at the
	// first listing, with the logos kept.
	h.stop()
	up.Store(false)
	h.start()
	if !listed() {
		t.Error("after a restart the cached registry is not listed at once")
	}
	icons()
	if n := hits.Load(); n != 1 {
		t.Errorf("a fresh cached copy was fetched again: %d requests", n)
	}
}

// e2eRegistryHostile: a hostile ACP registry (issue 28 §5). Entries whose
// package or version npm would read as a flag, a URL, a path or a git
// remote are not listed (so nothing of them reaches npm's argv), and an
// agent the user has not installed — a binary one naming /bin/sh, an npx
// one whose program name is on PATH — is unavailable with a reason and
// never run, however a thread names it.
func e2eRegistryHostile(t *testing.T, bins e2eBins) {
	marker := filepath.Join(t.TempDir(), "ran")
	npx := func(id, pkg string) any {
		return map[string]any{"id": id, "name": id, "version": "1.0.0",
			"distribution": map[string]any{"npx": map[string]any{"package": pkg, "args": []string{"-c", "touch " + marker}}}}
	}
	agents := []any{
		map[string]any{"id": "binsh", "name": "Binary sh", "version": "1.0.0", "distribution": map[string]any{"binary": map[string]any{
			"linux-x86_64": map[string]any{"archive": "https://evil.example/sh.tgz", "cmd": "/bin/sh", "args": []string{"-c", "touch " + marker}}}}},
		npx("npxsh", "sh@1.0.0"),
		map[string]any{"id": "uvxflag", "name": "uvx flag", "version": "1.0.0",
			"distribution": map[string]any{"uvx": map[string]any{"package": "--from=git+https://evil.example/x.git"}}},
	}
	hostile := map[string]string{
		"flagpkg": "--registry=http://evil.example/", "filepkg": "file:../../evil", "gitpkg": "git+ssh://git@evil.example/x.git",
		"urlpkg": "https://evil.example/x.tgz", "deeppkg": "@scope/a/b", "dotpkg": ".hidden", "upperpkg": "Evil",
		"flagver": "good-name@--force", "filever": "good-name@file:/tmp/x", "urlver": "good-name@https://evil.example/x.tgz",
	}
	for id, pkg := range hostile {
		agents = append(agents, npx(id, pkg))
	}
	doc, _ := json.Marshal(map[string]any{"version": "1.0.0", "agents": agents})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(doc) }))
	t.Cleanup(srv.Close)
	h := newHub(t, bins, hubConfig{"registry": map[string]any{"url": srv.URL + "/registry.json"}})
	list := func() map[string]apiAgent {
		var l struct{ Agents []apiAgent }
		h.call("GET", "/v1/agents", nil, 200, &l)
		m := map[string]apiAgent{}
		for _, a := range l.Agents {
			m[a.ID] = a
		}
		return m
	}
	if !waitFor(30*time.Second, func() bool { _, ok := list()["binsh"]; return ok }) {
		t.Fatal("the registry's agents are not listed")
	}
	got := list()
	for _, id := range []string{"binsh", "npxsh"} {
		if a := got[id]; a.Status != "unavailable" || !strings.Contains(a.Reason, "not installed") {
			t.Errorf("%s before the user installed it: %+v, want unavailable, not installed", id, a)
		}
		if r := h.do("POST", "/v1/threads", map[string]string{"agent": id, "cwd": t.TempDir()}); r.status != 400 {
			t.Errorf("a thread of %s: %s", id, r)
		}
	}
	for id := range hostile {
		if a, ok := got[id]; ok {
			t.Errorf("hostile entry %s (%q) listed: %+v", id, hostile[id], a)
		}
		if r := h.do("POST", "/v1/agents/"+id+"/install", map[string]any{}); r.status != 400 {
			t.Errorf("installing %s: %s", id, r)
		}
	}
	if a, ok := got["uvxflag"]; ok {
		t.Errorf("a uvx entry that is an option is listed: %+v", a)
	}
	// A thread that names it anyway (imported from a file) fails its
	// turn without starting it.
	cwd := t.TempDir()
	line := `{"schema":1,"thread":{"id":"th_0123456789","agent":"binsh","cwd":"/","title":"x"}}` + "\n"
	status, _, body := h.raw("POST", "/v1/threads/import?cwd="+urlQuery(cwd), "application/x-ndjson", strings.NewReader(line))
	var imp struct{ Threads []apiThread }
	if status != 201 || json.Unmarshal(body, &imp) != nil || len(imp.Threads) != 1 {
		t.Fatalf("import: %d %s", status, body)
	}
	tu := h.startTurn(imp.Threads[0].ID, "hello")
	if got := h.waitTurn(imp.Threads[0].ID, tu.ID, 30*time.Second); got.Status != "failed" || !strings.Contains(got.Error, "not installed") {
		t.Errorf("a turn of an agent not installed: %+v", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a registry agent the user never installed ran")
	}
}
