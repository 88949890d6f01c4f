package engine

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/policy"
)

type policyRequestT = policy.Request

// BenchmarkPolicyRequest is what happens once per permission before the
// rule loop (hub/policy's BenchmarkEvaluate1000): the tool call described
// and its locations resolved (symbolic links followed) against a real
// folder, here three locations, one through a symlink.
func BenchmarkPolicyRequest(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "src", "pkg"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "pkg", "a.go"), nil, 0o644)
	os.Symlink(filepath.Join(dir, "src"), filepath.Join(dir, "link"))
	var locs []map[string]string
	for _, p := range []string{"src/pkg/a.go", "link/pkg/a.go", "src/pkg/new.go"} {
		locs = append(locs, map[string]string{"path": filepath.Join(dir, p)})
	}
	tc, _ := json.Marshal(map[string]any{"toolCallId": "t", "kind": "edit", "title": "Edit a.go",
		"rawInput": map[string]any{"file_path": filepath.Join(dir, "src/pkg/a.go")}, "locations": locs})
	th := hub.Thread{ID: "th_1", Agent: "claude", ClientID: "window", Cwd: dir}
	opts := []hub.PermissionOption{{OptionID: "a", Kind: "allow_once"}, {OptionID: "r", Kind: "reject_once"}}
	b.ReportAllocs()
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: DefaultConfig()}
	for b.Loop() {
		r := policyRequest(th, hub.Permission{Kind: hub.PermKindAgent, Request: e.describeToolCall(th, tc), Options: opts})
		if r.Unresolved || len(r.Locations) != 2 { // link/pkg/a.go is src/pkg/a.go: one path
			b.Fatalf("%+v", r)
		}
	}
}

// A request with more locations than the rules resolve is never allowed
// by them (and costs no lstat per location).
func TestPolicyRequestManyLocations(t *testing.T) {
	dir := t.TempDir()
	locs := make([]map[string]string, maxRuleLocations+1)
	for i := range locs {
		locs[i] = map[string]string{"path": filepath.Join(dir, "f")}
	}
	e := &Engine{log: slog.New(slog.DiscardHandler), cfg: DefaultConfig()}
	th := hub.Thread{ID: "th", Agent: "a", Cwd: dir}
	req := func(tc []byte) *policyRequestT {
		return policyRequest(th, hub.Permission{Kind: hub.PermKindAgent, Request: e.describeToolCall(th, tc)})
	}
	tc, _ := json.Marshal(map[string]any{"kind": "read", "title": "Read", "locations": locs})
	if r := req(tc); !r.Undecidable || len(r.Locations) != 0 {
		t.Fatalf("%d locations resolved, undecidable %v", len(r.Locations), r.Undecidable)
	}
	locs[0] = map[string]string{"path": filepath.Join(dir, "g")} // two distinct paths at the bound
	tc, _ = json.Marshal(map[string]any{"kind": "read", "title": "Read", "locations": locs[:maxRuleLocations]})
	if r := req(tc); r.Unresolved || r.Undecidable || len(r.Locations) != 2 {
		t.Fatalf("at the bound: %d, unresolved %v", len(r.Locations), r.Unresolved)
	}
}
