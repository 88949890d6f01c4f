//go:build unix

package acp

import (
	"encoding/json"
	"strings"
	"testing"
)

// A prompt response's usage is kept for TakePromptUsage, once; a
// usage_update arrives as an update of its kind. New process, new session
// id with FAKEAGENT_UNIQUE_SESSIONS.
func TestPromptUsage(t *testing.T) {
	rec := newRecorder()
	a := launchFake(t, rec, fakeOpts{env: []string{"FAKEAGENT_UNIQUE_SESSIONS=1"}})
	sid, _ := newSession(t, a)
	if !strings.HasPrefix(sid, "fake-") || strings.Count(sid, "-") != 2 {
		t.Fatalf("session id %q: want fake-<pid>-<n>", sid)
	}
	if _, err := prompt(t, a, sid, "usage 10 100 0.5 USD 7 3"); err != nil {
		t.Fatal(err)
	}
	u := a.TakePromptUsage(sid)
	if u == nil || u.InputTokens != 7 || u.OutputTokens != 3 || u.TotalTokens != 10 {
		t.Fatalf("prompt usage %+v", u)
	}
	if again := a.TakePromptUsage(sid); again != nil {
		t.Fatalf("taken twice: %+v", again)
	}
	var got UsageUpdate
	rec.mu.Lock()
	for _, up := range rec.updates {
		if up.Kind == UpdateUsage {
			json.Unmarshal(up.Raw, &got)
		}
	}
	rec.mu.Unlock()
	if got.Used != 10 || got.Size != 100 || got.Cost == nil || got.Cost.Amount != 0.5 || got.Cost.Currency != "USD" {
		t.Fatalf("usage_update %+v", got)
	}
	// A prompt without usage leaves none behind.
	if _, err := prompt(t, a, sid, "usage 1 100 - USD"); err != nil {
		t.Fatal(err)
	}
	if u := a.TakePromptUsage(sid); u != nil {
		t.Fatalf("usage %+v from a response without one", u)
	}
}
