package install_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/install"
)

const registryJSON = `{"version":"1.0.0","agents":[
 {"id":"npx-agent","name":"Npx Agent","version":"2.0.0","distribution":{"npx":{"package":"@org/npx-agent@2.0.1","args":["--acp"],"env":{"A":"b"}}}},
 {"id":"uvx-agent","name":"Uvx Agent","version":"1.0.0","distribution":{"uvx":{"package":"uvx-agent==1.0","args":["acp"]}}},
 {"id":"bin-agent","name":"Bin Agent","version":"1.0.0","distribution":{"binary":{"linux-x86_64":{"archive":"https://example.test/bin.tgz","cmd":"./bin-agent","args":["acp"]}}}},
 {"id":"mac-only","name":"Mac","version":"1.0.0","distribution":{"binary":{"darwin-aarch64":{"archive":"https://x","cmd":"./m"}}}},
 {"id":"claude","name":"Shadowed","version":"9.9.9","distribution":{"npx":{"package":"evil"}}}
]}`

// The registry is read from its URL, cached, not asked again within a
// day, and its cache serves when the URL is unreachable; its agents map to
// catalogue entries (npx installable, uvx run through uvx, binary listed
// with where to get it), never over a built-in id.
func TestACPRegistry(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(registryJSON))
	}))
	defer srv.Close()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	in := &install.Installer{Dir: filepath.Join(t.TempDir(), "agents"), Now: func() time.Time { return now }}

	// Offline with no cache: nothing, and why.
	if got, err := in.ACPRegistry(context.Background(), "http://127.0.0.1:1/registry.json"); got != nil || err == nil {
		t.Fatalf("offline without a cache: %v %v", got, err)
	}
	agents, err := in.ACPRegistry(context.Background(), srv.URL+"/registry.json")
	if err != nil || len(agents) != 5 {
		t.Fatalf("fresh: %d agents, %v", len(agents), err)
	}
	if _, err := in.ACPRegistry(context.Background(), srv.URL+"/registry.json"); err != nil || hits.Load() != 1 {
		t.Errorf("asked again within a day: hits %d, %v", hits.Load(), err)
	}
	// The cache without the network; it is this URL's only.
	if got, at := in.CachedRegistry(srv.URL + "/registry.json"); len(got) != 5 || at.IsZero() {
		t.Errorf("CachedRegistry: %d agents at %v", len(got), at)
	}
	if got, at := in.CachedRegistry("http://127.0.0.1:1/other.json"); got != nil || !at.IsZero() {
		t.Errorf("another registry's cache: %d agents at %v", len(got), at)
	}
	// A day later and offline: the cache.
	srv.Close()
	now = now.Add(25 * time.Hour)
	in.Now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	if got, err := in.ACPRegistry(context.Background(), srv.URL+"/registry.json"); len(got) != 5 || err == nil {
		t.Errorf("offline with a stale cache: %d agents, %v", len(got), err)
	}

	specs := install.RegistrySpecs(agents, func(id string) bool { return id == "claude" })
	byID := map[string]int{}
	for i, s := range specs {
		byID[s.ID] = i
	}
	if len(specs) != 3 {
		t.Fatalf("specs %+v", specs)
	}
	n := specs[byID["npx-agent"]]
	if n.NPM == nil || n.NPM.Package != "@org/npx-agent" || n.NPM.Version != "2.0.1" || n.NPM.Bin != "" || n.Command.Path != "npx-agent" ||
		len(n.Command.Args) != 1 || n.Command.Env[0] != "A=b" || !n.Registry {
		t.Errorf("npx agent %+v (npm %+v)", n, n.NPM)
	}
	if u := specs[byID["uvx-agent"]]; u.NPM != nil || u.Command.Path != "uvx" || u.Command.Args[0] != "uvx-agent==1.0" {
		t.Errorf("uvx agent %+v", u)
	}
	if b := specs[byID["bin-agent"]]; b.NPM != nil || b.Command.Path != "bin-agent" || b.Install == "" {
		t.Errorf("binary agent %+v", b)
	}
}
