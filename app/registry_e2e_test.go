//go:build linux

package app_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	doc, _ := json.Marshal(map[string]any{"version": "1.0.0", "agents": []any{
		map[string]any{"id": "lazyreg", "name": "Lazy registry agent", "version": "1.0.0", "description": "x",
			"distribution": map[string]any{"npx": map[string]any{"package": "lazy-registry-agent@1.0.0"}}},
	}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	h := newHub(t, bins, hubConfig{"registry": map[string]any{"url": srv.URL + "/registry.json"}})
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

	// Restarted, the registry down: the cached copy, at the first listing.
	h.stop()
	up.Store(false)
	h.start()
	if !listed() {
		t.Error("after a restart the cached registry is not listed at once")
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("a fresh cached copy was fetched again: %d requests", n)
	}
}
