//go:build unix

package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
	"github.com/switchboard-hub/switchboard/store"
)

// Hostile searches (issue 28): too many or too short prefix terms are
// refused with INVALID_ARGUMENT and details.reason SEARCH_TOO_BROAD before
// SQLite sees them; sane prefixes and quoted stars are not.
func TestSearchRefusesBroadPrefixes(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	reason := func(err error) string {
		if e, ok := err.(*hub.Error); ok {
			r, _ := e.Details["reason"].(string)
			return e.Code + " " + r
		}
		return "not a hub error: " + hub.ErrorCode(err)
	}
	hostile := strings.Repeat("a* ", 100) // ~300 bytes of one-letter prefixes
	for _, q := range []string{hostile, "ab*", `"x y"*`, "abc* def* ghi* jkl* mno*", `ok AND NOT "an"*`, "*"} {
		_, err := h.e.Search(ctx, alice, hub.SearchQuery{Q: q})
		if got := reason(err); got != "INVALID_ARGUMENT "+hub.ReasonSearchTooBroad {
			t.Errorf("%.40q: %s (%v)", q, got, err)
		}
	}
	for _, q := range []string{"abc*", "abc* def* ghi* jkl*", `"a*b*c*d*e"`, `"one two"*`, "plain words", `"say ""hi""*"`} {
		if _, err := h.e.Search(ctx, alice, hub.SearchQuery{Q: q}); err != nil && hub.ErrorCode(err) != hub.CodeInvalidArgument {
			t.Errorf("%q: %v", q, err)
		} else if err != nil && strings.Contains(reason(err), hub.ReasonSearchTooBroad) {
			t.Errorf("%q refused as too broad: %v", q, err)
		}
	}

}

// A search that outlives the search timeout is interrupted and answered
// TIMEOUT with details.reason SEARCH_TIMEOUT.
func TestSearchTimeout(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e, err := engine.New(context.Background(), engine.Options{Store: db, Config: engine.DefaultConfig(), SearchTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.Close(ctx)
	}()
	_, err = e.Search(context.Background(), alice, hub.SearchQuery{Q: "anything"})
	var he *hub.Error
	if !errors.As(err, &he) || he.Code != hub.CodeTimeout || he.Details["reason"] != hub.ReasonSearchTimeout {
		t.Fatalf("search past its deadline: %v, want TIMEOUT %s", err, hub.ReasonSearchTimeout)
	}
	// The caller's own cancellation is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Search(ctx, alice, hub.SearchQuery{Q: "anything"}); hub.ErrorCode(err) == hub.CodeTimeout {
		t.Fatalf("a cancelled search: %v", err)
	}
}
