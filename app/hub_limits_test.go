package app

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
)

// The limits.* keys apply live: an edit raising streamsPerClient lets the
// next stream in, and the engine takes the permission and request bounds.
func TestHubAppliesLimitEdits(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	writeFile(t, config, "listen: 127.0.0.1:0\nlimits:\n  streamsPerClient: 1\n")
	o := Options{DataDir: filepath.Join(dir, "data"), Config: config}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	h, err := startHub(context.Background(), &env{stdio: Stdio{Err: &testkit.Buffer{}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer h.stop(context.Background())
	open := func() *http.Response {
		req, _ := http.NewRequest("GET", h.url+"/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("X-Client-ID", "script")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if r := open(); r.StatusCode != 200 {
		t.Fatalf("first stream: %d", r.StatusCode)
	}
	if r := open(); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second stream with streamsPerClient 1: %d", r.StatusCode)
	}
	atomicSave(t, config, "listen: 127.0.0.1:0\nlimits:\n  streamsPerClient: 2\n  pendingPermissionsPerTurn: 3\n  agentRequests: 2\n")
	waitFor(t, "the new limits", func() bool {
		return h.currentConfig().Limits.StreamsPerClient == 2 // stored after every apply step
	})
	if c := h.engine.Config(); c.AgentRequests != 2 || c.PendingPermissionsPerTurn != 3 {
		t.Fatalf("engine config %+v, want agentRequests 2 and pendingPermissionsPerTurn 3", c)
	}
	if r := open(); r.StatusCode != 200 {
		t.Fatalf("second stream with streamsPerClient 2: %d", r.StatusCode)
	}
}
