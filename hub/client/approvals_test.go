package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// bodyInto records the JSON body of the request, then answers with h.
func bodyInto(t *testing.T, into *map[string]any, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: Content-Type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		*into = nil
		if err := json.Unmarshal(b, into); err != nil {
			t.Errorf("%s %s: body %q: %v", r.Method, r.URL.Path, b, err)
		}
		h(w, r)
	}
}

// DecideResult sends remember with the decision and decodes the rule and
// shadowedBy; Decide (the older call) still returns the permission; the
// errors are *Error with the hub's code.
func TestDecideResult(t *testing.T) {
	f := newFakeHub(t)
	var body map[string]any
	f.on("POST /v1/permissions/pm_1", bodyInto(t, &body, jsonAnswer(200, `{"permission":{"id":"pm_1","status":"approved","decidedBy":"client:test","optionId":"allow"},
		"rule":{"id":"ru_1","scope":"thread","threadId":"th_1","agent":"fake","kind":"execute","command":"make clean","decision":"allow","createdBy":"client:test","permissionId":"pm_1","createdAt":"2026-11-25T08:00:00Z"},
		"shadowedBy":"deny-make"}`)),
		bodyInto(t, &body, jsonAnswer(200, `{"permission":{"id":"pm_1","status":"declined","decidedBy":"client:test"}}`)))
	f.on("POST /v1/permissions/pm_2", jsonAnswer(409, `{"error":{"code":"CONFLICT","message":"already decided"}}`))
	f.on("POST /v1/permissions/pm_x%2Fy", jsonAnswer(404, `{"error":{"code":"NOT_FOUND","message":"no such permission"}}`))
	c := testClient(f, Options{ClientID: "test"})
	ctx := context.Background()

	r, err := c.DecideResult(ctx, "pm_1", hub.Decision{Outcome: hub.PermissionApproved, Remember: hub.RememberThread})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"outcome": "approved", "remember": "thread"}; !reflect.DeepEqual(body, want) {
		t.Errorf("sent %v, want %v", body, want)
	}
	if r.Permission.Status != hub.PermissionApproved || r.Rule == nil || r.Rule.ID != "ru_1" || r.Rule.Command != "make clean" ||
		r.Rule.Scope != hub.RememberThread || r.ShadowedBy != "deny-make" || r.Rule.CreatedAt.IsZero() {
		t.Errorf("answer %+v rule %+v", r, r.Rule)
	}

	p, err := c.Decide(ctx, "pm_1", hub.Decision{OptionID: "reject"})
	if err != nil || p.ID != "pm_1" || p.Status != hub.PermissionDeclined {
		t.Errorf("Decide: %+v %v", p, err)
	}
	if want := map[string]any{"optionId": "reject"}; !reflect.DeepEqual(body, want) {
		t.Errorf("Decide sent %v, want %v (no remember when none is asked)", body, want)
	}

	if _, err := c.DecideResult(ctx, "pm_2", hub.Decision{Outcome: hub.PermissionApproved, Remember: hub.RememberAgent}); !IsCode(err, hub.CodeConflict) || StatusOf(err) != 409 {
		t.Errorf("decided twice: %v, want CONFLICT", err)
	}
	// The id is one path segment, whatever it holds.
	if _, err := c.DecideResult(ctx, "pm_x/y", hub.Decision{Outcome: hub.PermissionApproved}); !IsCode(err, hub.CodeNotFound) {
		t.Errorf("unknown: %v, want NOT_FOUND", err)
	}
	if got := f.requests()[len(f.requests())-1].URL.EscapedPath(); got != "/v1/permissions/pm_x%2Fy" {
		t.Errorf("path %q", got)
	}
}

// DecideBatch sends the batch's words and returns each id's result in
// order: a permission or an error; a refused request is the call's error.
func TestDecideBatch(t *testing.T) {
	f := newFakeHub(t)
	var body map[string]any
	f.on("POST /v1/permissions/decide",
		bodyInto(t, &body, jsonAnswer(200, `{"results":[
			{"id":"pm_1","permission":{"id":"pm_1","status":"declined","decidedBy":"tray"}},
			{"id":"pm_2","error":{"code":"CONFLICT","message":"already decided"}},
			{"id":"pm_3","error":{"code":"NOT_FOUND","message":"no such permission"}}]}`)),
		jsonAnswer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"outcome must be approved or declined"}}`))
	c := testClient(f, Options{ClientID: "test", All: true})
	ctx := context.Background()
	res, err := c.DecideBatch(ctx, hub.BatchDecision{IDs: []string{"pm_1", "pm_2", "pm_3"}, Outcome: hub.PermissionDeclined, Remember: hub.RememberFolder})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"ids": []any{"pm_1", "pm_2", "pm_3"}, "outcome": "declined", "remember": "folder"}; !reflect.DeepEqual(body, want) {
		t.Errorf("sent %v, want %v", body, want)
	}
	if len(res) != 3 {
		t.Fatalf("results %+v", res)
	}
	if res[0].ID != "pm_1" || res[0].Permission == nil || res[0].Permission.Status != hub.PermissionDeclined || res[0].Error != nil {
		t.Errorf("first %+v", res[0])
	}
	if res[1].ID != "pm_2" || res[1].Permission != nil || res[1].Error == nil || res[1].Error.Code != hub.CodeConflict {
		t.Errorf("second %+v", res[1])
	}
	if res[2].ID != "pm_3" || res[2].Error == nil || res[2].Error.Code != hub.CodeNotFound || res[2].Error.Message == "" {
		t.Errorf("third %+v", res[2])
	}
	if q := f.requests()[0].URL.Query(); q.Get("scope") != "all" {
		t.Errorf("query %v: want scope=all for a client with All", q)
	}
	res, err = c.DecideBatch(ctx, hub.BatchDecision{IDs: []string{"pm_1"}, Outcome: "maybe"})
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || e.Code != hub.CodeInvalidArgument || res != nil {
		t.Errorf("bad outcome: %v %+v, want the 400", err, res)
	}
}

// Rules lists the remembered rules; DeleteRule removes one, an unknown one
// is NOT_FOUND.
func TestRules(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/rules", jsonAnswer(200, `{"rules":[{"id":"ru_1","scope":"folder","cwd":"/src/a","agent":"claude","kind":"read","decision":"deny","createdBy":"window","permissionId":"pm_9","createdAt":"2026-11-25T08:00:00Z"}]}`),
		jsonAnswer(200, `{"rules":[]}`))
	f.on("DELETE /v1/rules/ru_1", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) },
		jsonAnswer(404, `{"error":{"code":"NOT_FOUND","message":"no such rule"}}`))
	c := testClient(f, Options{ClientID: "test"})
	ctx := context.Background()
	rs, err := c.Rules(ctx)
	if err != nil || len(rs) != 1 || rs[0].ID != "ru_1" || rs[0].Scope != hub.RememberFolder || rs[0].Cwd != "/src/a" || rs[0].Decision != hub.RuleDeny {
		t.Fatalf("rules %+v %v", rs, err)
	}
	if err := c.DeleteRule(ctx, "ru_1"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteRule(ctx, "ru_1"); !IsCode(err, hub.CodeNotFound) || StatusOf(err) != 404 {
		t.Errorf("deleted twice: %v, want NOT_FOUND", err)
	}
	if rs, err := c.Rules(ctx); err != nil || len(rs) != 0 {
		t.Errorf("after: %+v %v", rs, err)
	}
}

// PermissionsPage sends only the filters set, and pages with nextCursor.
func TestPermissionsPage(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/permissions",
		jsonAnswer(200, `{"permissions":[{"id":"pm_3","status":"approved","decidedBy":"rule:reads","agent":"claude"},{"id":"pm_2","status":"approved","decidedBy":"rule:reads","agent":"claude"}],"nextCursor":"c2"}`),
		jsonAnswer(200, `{"permissions":[{"id":"pm_1","status":"approved","decidedBy":"rule:reads","agent":"claude"}]}`),
		jsonAnswer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"from is not an RFC 3339 time"}}`))
	c := testClient(f, Options{ClientID: "test"})
	ctx := context.Background()
	q := hub.PermissionQuery{Status: hub.PermissionApproved, DecidedBy: "rule:", Agent: "claude", ThreadID: "th_1",
		From: "2026-11-25T00:00:00Z", To: "2026-11-26T00:00:00+01:00", Limit: 2}
	var ids []string
	for {
		page, err := c.PermissionsPage(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page.Permissions {
			ids = append(ids, p.ID)
		}
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			break
		}
	}
	if !reflect.DeepEqual(ids, []string{"pm_3", "pm_2", "pm_1"}) {
		t.Errorf("pages %v", ids)
	}
	reqs := f.requests()
	want := url.Values{"status": {"approved"}, "decidedBy": {"rule:"}, "agent": {"claude"}, "threadId": {"th_1"},
		"from": {"2026-11-25T00:00:00Z"}, "to": {"2026-11-26T00:00:00+01:00"}, "limit": {"2"}}
	if got := reqs[0].URL.Query(); !reflect.DeepEqual(got, want) {
		t.Errorf("first query %v, want %v", got, want)
	}
	want.Set("cursor", "c2")
	if got := reqs[1].URL.Query(); !reflect.DeepEqual(got, want) {
		t.Errorf("second query %v, want %v", got, want)
	}
	// Only the filter set is sent; the hub's refusal is the error.
	_, err := c.PermissionsPage(ctx, hub.PermissionQuery{From: "yesterday"})
	if !IsCode(err, hub.CodeInvalidArgument) {
		t.Errorf("bad from: %v", err)
	}
	if got := f.requests()[2].URL.Query(); !reflect.DeepEqual(got, url.Values{"from": {"yesterday"}}) {
		t.Errorf("query %v", got)
	}
}

// ElicitationsPage sends the same filters as PermissionsPage, to
// /v1/elicitations.
func TestElicitationsPageQuery(t *testing.T) {
	f := newFakeHub(t)
	f.on("GET /v1/elicitations", jsonAnswer(200, `{"elicitations":[{"id":"el_1","status":"pending"}]}`))
	c := testClient(f, Options{ClientID: "test"})
	page, err := c.ElicitationsPage(context.Background(), hub.ElicitationQuery{Status: hub.ElicitationPending, ThreadID: "th_1", Limit: 5, Cursor: "c1"})
	if err != nil || len(page.Elicitations) != 1 || page.Elicitations[0].ID != "el_1" {
		t.Fatalf("page %+v %v", page, err)
	}
	want := url.Values{"status": {"pending"}, "threadId": {"th_1"}, "limit": {"5"}, "cursor": {"c1"}}
	if got := f.requests()[0].URL.Query(); !reflect.DeepEqual(got, want) {
		t.Errorf("query %v, want %v", got, want)
	}
}
