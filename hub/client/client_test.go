package client

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	if _, err := Discover(dir); !errors.Is(err, ErrNoHub) {
		t.Errorf("no hub.json: %v, want ErrNoHub", err)
	}
	tests := []struct {
		name, hubJSON, token, want string
	}{
		{"not JSON", `{`, "t", "hub.json"},
		{"no url", `{"pid":1}`, "t", "not an http URL"},
		{"file url", `{"url":"file:///etc/passwd"}`, "t", "not an http URL"},
		{"empty token", `{"url":"http://127.0.0.1:1"}`, " \n", "token file is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, hub.DiscoveryFile), []byte(tt.hubJSON), 0o600)
			os.WriteFile(filepath.Join(dir, hub.TokenFile), []byte(tt.token), 0o600)
			_, err := Discover(dir)
			var de *DataDirError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a *DataDirError saying %q", err, tt.want)
			}
		})
	}
	writeDataDir(t, dir, "http://127.0.0.1:8686/", "secret-token")
	h, err := Discover(dir)
	if err != nil || h.URL != "http://127.0.0.1:8686" || h.token != "secret-token" {
		t.Fatalf("got %+v %v", h, err)
	}
	// The token never shows in what may be logged.
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("found", "hub", h)
	if s := b.String() + h.String(); strings.Contains(s, "secret-token") {
		t.Errorf("the token is in %q", s)
	}
}

// A data-dir client finds a hub restarted on another port with another
// token on its next call, without the caller doing anything.
func TestClientFollowsARestartedHub(t *testing.T) {
	dir := t.TempDir()
	old := newFakeHub(t)
	old.setToken("tok1")
	old.on("GET /v1/agents", jsonAnswer(200, `{"agents":[{"id":"old"}]}`))
	writeDataDir(t, dir, old.srv.URL, "tok1")
	c := newClient(dir, Options{ClientID: "test"})
	ags, err := c.Agents(context.Background())
	if err != nil || len(ags) != 1 || ags[0].ID != "old" {
		t.Fatalf("first hub: %+v %v", ags, err)
	}
	old.srv.Close()
	restarted := newFakeHub(t)
	restarted.setToken("tok2")
	restarted.on("GET /v1/agents", jsonAnswer(200, `{"agents":[{"id":"new"}]}`))
	writeDataDir(t, dir, restarted.srv.URL, "tok2")
	ags, err = c.Agents(context.Background())
	if err != nil || len(ags) != 1 || ags[0].ID != "new" {
		t.Fatalf("restarted hub: %+v %v", ags, err)
	}
	if got := restarted.requests()[0].Header.Get("Authorization"); got != "Bearer tok2" {
		t.Errorf("sent %q to the restarted hub", got)
	}

	// Same hub, new token file: a 401 (the pooled client, on a connection
	// proven before) or a failed proof (the lean one, on a new connection)
	// makes the client read the token again and retry once with it.
	restarted.set("GET /v1/agents", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok3" {
			jsonAnswer(401, `{"error":{"code":"UNAUTHORIZED","message":"bad token"}}`)(w, r)
			return
		}
		jsonAnswer(200, `{"agents":[]}`)(w, r)
	})
	restarted.setToken("tok3")
	os.WriteFile(filepath.Join(dir, hub.TokenFile), []byte("tok3\n"), 0o600)
	if _, err := c.Agents(context.Background()); err != nil {
		t.Fatalf("after the token changed: %v", err)
	}
	// A 401 with nothing changed is the answer, not retried.
	restarted.set("GET /v1/agents", jsonAnswer(401, `{"error":{"code":"UNAUTHORIZED","message":"bad token"}}`))
	n := len(restarted.requests())
	if _, err := c.Agents(context.Background()); StatusOf(err) != 401 || !IsCode(err, hub.CodeUnauthorized) {
		t.Errorf("got %v, want the 401", err)
	}
	if got := len(restarted.requests()) - n; got != 1 {
		t.Errorf("%d requests for one refused call, want 1", got)
	}

	// The hub gone for good: a clear error naming it.
	restarted.srv.Close()
	_, err = c.Agents(context.Background())
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.URL != restarted.srv.URL {
		t.Errorf("got %v, want an *UnreachableError for %s", err, restarted.srv.URL)
	}
}

func TestErrorAnswer(t *testing.T) {
	f := newFakeHub(t)
	f.on("POST /v1/permissions/p1", jsonAnswer(409, `{"error":{"code":"CONFLICT","message":"already decided","details":{"reason":"DECIDED"}}}`))
	f.on("POST /v1/threads/th/turns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		jsonAnswer(429, `{"error":{"code":"TOO_MANY_REQUESTS","message":"agent limit"}}`)(w, r)
	})
	c := testClient(f, Options{TraySecret: "s3cret"})
	_, err := c.Decide(context.Background(), "p1", hub.Decision{Outcome: hub.PermissionApproved})
	var e *Error
	if !errors.As(err, &e) || e.Status != 409 || e.Code != hub.CodeConflict || e.Details["reason"] != "DECIDED" {
		t.Errorf("got %#v", err)
	}
	if got := f.requests()[0].Header.Get(hub.TraySecretHeader); got != "s3cret" {
		t.Errorf("tray secret %q", got)
	}
	if got := f.requests()[0].Header.Values("X-Switchboard-Via"); got != nil {
		t.Errorf("X-Switchboard-Via %q: no client names its surface", got)
	}
	_, err = c.StreamTurn(context.Background(), "th", hub.TurnInput{Input: "x"}, StreamOptions{})
	if !errors.As(err, &e) || e.Status != 429 || e.RetryAfter != 3*time.Second {
		t.Errorf("got %#v", err)
	}
}
