package httpapi

import (
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// The audit's filters reach the service as given; bad ones are 400
// before it is called.
func TestPermissionAuditParams(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	var page hub.PermissionPage
	h.mustJSON(h.call("GET", "/v1/permissions?status=approved&decidedBy=rule:&agent=claude&threadId="+id+
		"&from=2026-11-01T00:00:00Z&to=2026-11-30T00:00:00%2B01:00&limit=20&cursor=abc", ""), 200, &page)
	h.fake.mu.Lock()
	q := h.fake.lastPermissionQuery
	h.fake.mu.Unlock()
	want := hub.PermissionQuery{Status: "approved", DecidedBy: "rule:", Agent: "claude", ThreadID: id,
		From: "2026-11-01T00:00:00Z", To: "2026-11-30T00:00:00+01:00", Limit: 20, Cursor: "abc"}
	if q != want {
		t.Fatalf("query %+v, want %+v", q, want)
	}
	if page.Permissions == nil {
		t.Fatal("permissions: null, want []")
	}
	for _, bad := range []string{"status=maybe", "from=yesterday", "to=2026-11-01", "limit=0", "limit=501", "limit=x", "cursor=bad"} {
		if r := h.call("GET", "/v1/permissions?"+bad, ""); r.status != 400 || r.code() != "INVALID_ARGUMENT" {
			t.Errorf("%s: %d %s", bad, r.status, r.body)
		}
	}
}

// A batch answers each id in the order given; remember adds a rule,
// listed by GET /v1/rules and removed by DELETE.
func TestBatchAndRules(t *testing.T) {
	h := newHarness(t)
	id := h.newThread("c1")
	h.mustJSON(h.call("POST", "/v1/threads/"+id+"/turns", `{"input":"hold"}`), 202, nil)
	p1 := h.fake.addPermission(id)
	p2 := h.fake.addPermission(id)
	h.mustJSON(h.call("POST", "/v1/permissions/"+p2.ID, `{"outcome":"declined"}`), 200, nil)

	var res hub.BatchResult
	h.mustJSON(h.call("POST", "/v1/permissions/decide", `{"ids":["`+p1.ID+`","`+p2.ID+`","nope"],"outcome":"approved"}`), 200, &res)
	if len(res.Results) != 3 || res.Results[0].ID != p1.ID || res.Results[0].Permission == nil ||
		res.Results[0].Permission.Status != "approved" || res.Results[1].Error == nil || res.Results[1].Error.Code != "CONFLICT" ||
		res.Results[2].Error == nil || res.Results[2].Error.Code != "NOT_FOUND" {
		t.Fatalf("%+v", res)
	}
	for _, body := range []string{`{}`, `{"ids":[]}`, `{"ids":["x"]}`, `{"ids":["x"],"outcome":"maybe"}`,
		`{"ids":["x"],"outcome":"approved","remember":"forever"}`, `{"ids":"x","outcome":"approved"}`} {
		if r := h.call("POST", "/v1/permissions/decide", body); r.status != 400 {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}

	p3 := h.fake.addPermission(id)
	if r := h.call("POST", "/v1/permissions/"+p3.ID, `{"outcome":"approved","remember":"always"}`); r.status != 400 {
		t.Fatalf("remember=always: %d", r.status)
	}
	var d hub.DecisionResult
	h.mustJSON(h.call("POST", "/v1/permissions/"+p3.ID, `{"outcome":"approved","remember":"thread"}`), 200, &d)
	if d.Rule == nil || d.Rule.Scope != "thread" || d.Permission.Status != "approved" {
		t.Fatalf("%+v", d)
	}
	var rules struct{ Rules []hub.RememberedRule }
	h.mustJSON(h.call("GET", "/v1/rules", ""), 200, &rules)
	if len(rules.Rules) != 1 || rules.Rules[0].ID != d.Rule.ID {
		t.Fatalf("%+v", rules)
	}
	if r := h.call("DELETE", "/v1/rules/"+d.Rule.ID, ""); r.status != 204 {
		t.Fatalf("delete: %d", r.status)
	}
	if r := h.call("DELETE", "/v1/rules/"+d.Rule.ID, ""); r.status != 404 {
		t.Fatalf("delete again: %d", r.status)
	}
	h.mustJSON(h.call("GET", "/v1/rules", ""), 200, &rules)
	if len(rules.Rules) != 0 {
		t.Fatalf("%+v", rules)
	}
}
