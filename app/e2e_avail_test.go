//go:build linux

package app_test

import (
	"math"
	"testing"
	"time"
)

// TestE2EUsageHostileCosts (issue 28): an agent reporting costs near
// MaxFloat64 (whose naive sum is +Inf), absurd token counts and a negative
// cost through the real `switchboard serve`: the turn, the next turn and
// GET /v1/usage answer with finite numbers clamped to the documented caps
// (1e6 a report, 1e9 tokens), and still do after a restart.
func TestE2EUsageHostileCosts(t *testing.T) {
	bins := buildE2E(t, t.TempDir())
	h := newHub(t, bins, hubConfig{
		"budgets": map[string]any{"currency": "USD", "monthly": 1e12},
		"agents":  map[string]agentConf{"fake": fakeAgentConf(t)},
	})
	th := h.newThread("fake", t.TempDir())
	run := func(input string) apiTurn {
		t.Helper()
		tu := h.startTurn(th.ID, input)
		return h.waitTurn(th.ID, tu.ID, 30*time.Second)
	}
	if tu := run("usage-hostile"); tu.Status != "completed" {
		t.Fatalf("hostile turn %+v", tu)
	}
	check := func(when string) {
		t.Helper()
		if tu := run("echo still serving"); tu.Status != "completed" {
			t.Fatalf("%s: the next turn %+v", when, tu)
		}
		for _, by := range []string{"thread", "day", "agent"} {
			var u apiUsage
			h.call("GET", "/v1/usage?by="+by, nil, 200, &u)
			if len(u.Buckets) != 1 {
				t.Fatalf("%s: by=%s %+v", when, by, u)
			}
			b := u.Buckets[0]
			if c := b.Cost["USD"]; math.IsInf(c, 0) || math.IsNaN(c) || c != 1e6 {
				t.Errorf("%s: by=%s cost %v, want the cap 1e6", when, by, c)
			}
			if b.InputTokens != 1e9 || b.OutputTokens != 1e9 {
				t.Errorf("%s: by=%s tokens %d/%d, want the cap 1e9", when, by, b.InputTokens, b.OutputTokens)
			}
		}
	}
	check("live")
	h.stop()
	h.start()
	check("after a restart")
}
