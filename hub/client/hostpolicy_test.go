package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// A host's policy through a hub (Remote.HostPolicy): each call is the
// hub's own, sent to /v1/hosts/{host}/… (the name escaped), as the caller
// given; the hub's own routes stay its own.
func TestHostPolicyCallsTheHostsRoutes(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/hosts/box/settings", jsonAnswer(200, `{"settings":{"configFile":"/home/me/.config/switchboard/config.yaml","agents":[]}}`))
	f.on("PATCH /v1/hosts/box/settings", jsonAnswer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"ui.theme: want system, light or dark","details":{"field":"ui.theme"}}}`))
	f.on("GET /v1/hosts/box/rules", jsonAnswer(200, `{"rules":[{"id":"ru_1","threadId":"th_1@box"}]}`))
	f.on("DELETE /v1/hosts/box/rules/ru_1", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	f.on("GET /v1/hosts/box/usage", jsonAnswer(200, `{"buckets":[{"key":"th_1@box","cost":{},"inputTokens":1,"outputTokens":2}],"agentsWithoutCost":[]}`))
	f.on("POST /v1/hosts/box/budgets/override", jsonAnswer(502, `{"error":{"code":"UPSTREAM_UNAVAILABLE","message":"host box is not connected","details":{"reason":"HOST_UNREACHABLE","host":"box"}}}`))
	f.on("GET /v1/settings", jsonAnswer(200, `{"settings":{"configFile":"/here.yaml","agents":[]}}`))
	r := testClient(f, Options{ClientID: "test"}).Remote()
	ctx := context.Background()
	p, err := r.HostPolicy(ctx, "box")
	if err != nil {
		t.Fatal(err)
	}
	alice := hub.Caller{ClientID: "alice", All: true}

	if st, err := p.Settings(ctx); err != nil || st.ConfigFile != "/home/me/.config/switchboard/config.yaml" {
		t.Fatalf("Settings: %+v, %v", st, err)
	}
	theme := "purple"
	_, err = p.UpdateSettings(ctx, hub.SettingsPatch{UI: &hub.UISettingsPatch{Theme: &theme}})
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != hub.CodeInvalidArgument || he.Details["field"] != "ui.theme" {
		t.Fatalf("UpdateSettings: %v, want the host's 400 naming ui.theme", err)
	}
	if rules, err := p.ListRules(ctx, alice); err != nil || len(rules) != 1 || rules[0].ThreadID != "th_1@box" {
		t.Fatalf("ListRules: %+v, %v", rules, err)
	}
	if err := p.DeleteRule(ctx, alice, "ru_1"); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	if rep, err := p.Usage(ctx, alice, hub.UsageQuery{By: hub.UsageByThread}); err != nil || len(rep.Buckets) != 1 || rep.Buckets[0].Key != "th_1@box" {
		t.Fatalf("Usage: %+v, %v", rep, err)
	}
	_, err = p.OverrideBudget(ctx, alice, hub.OverrideRequest{Budget: "daily"})
	if !errors.As(err, &he) || he.Details["reason"] != hub.ReasonHostUnreachable {
		t.Fatalf("OverrideBudget: %v, want HOST_UNREACHABLE", err)
	}
	// The hub's own route is not touched by a host's calls.
	if st, err := r.Settings(ctx); err != nil || st.ConfigFile != "/here.yaml" {
		t.Fatalf("the hub's own Settings: %+v, %v", st, err)
	}
	for _, q := range f.requests() {
		if q.URL.Path == "/v1/hosts/box/rules" && (q.Header.Get("X-Client-ID") != "alice" || q.URL.Query().Get("scope") != "all") {
			t.Errorf("rules asked as %q scope %q, want alice, all", q.Header.Get("X-Client-ID"), q.URL.Query().Get("scope"))
		}
	}
}
