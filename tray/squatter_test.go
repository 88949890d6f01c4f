package tray

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A stale hub.json (the hub crashed) names a port another program took:
// the tray never sends it the token, says what is wrong, and Open does not
// hand the browser anything from it.
func TestSquatterGetsNoTokenFromTheTray(t *testing.T) {
	urls, starts := stubOpeners(t)
	var mu sync.Mutex
	var auths []string
	hits := 0
	sq := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		if a := r.Header.Get("Authorization"); a != "" {
			auths = append(auths, a)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"version":"1.0","proof":"00"}`)
	}))
	defer sq.Close()
	h := newFakeHub(t) // its data dir and token; hub.json then names the squatter
	h.writeDiscovery(sq.URL)

	got := newMenus()
	w := &Watcher{DataDir: h.dir, Publish: got.publish, Log: quietLog()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	m := got.waitFor(t, "trouble", 10*time.Second, func(m Menu) bool {
		return m.Icon == IconTrouble && strings.Contains(m.Status, "does not know the token")
	})
	if m.Status != "Hub unreachable: what answers at hub.json's address does not know the token" {
		t.Errorf("status %q", m.Status)
	}
	w.Do(ctx, Action{Kind: ActOpen})
	w.Do(ctx, Action{Kind: ActQuitHub})
	cancel()
	<-done

	mu.Lock()
	defer mu.Unlock()
	if hits == 0 || len(auths) != 0 {
		t.Fatalf("the squatter had %d requests and got Authorization %q", hits, auths)
	}
	if len(*urls) != 0 || len(*starts) != 1 {
		t.Fatalf("Open against a squatter: urls %q starts %q (want the app started, no link)", *urls, *starts)
	}
}
