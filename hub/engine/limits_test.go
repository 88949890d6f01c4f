//go:build unix

package engine_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// An agent asking 40 permissions at once in one turn gets 32 in front of
// the user (limits.pendingPermissionsPerTurn) and the other 8 refused at
// once with its reject_once option, logged, never raised.
func TestPendingPermissionsPerTurnBounded(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit int
	}{{"default", 0}, {"configured", 5}} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &testkit.Buffer{}
			h := &harness{t: t, dbPath: t.TempDir() + "/hub.db", cwd: t.TempDir(), log: slog.New(slog.NewTextHandler(logs, nil))}
			c := engine.DefaultConfig()
			if tt.limit > 0 {
				c.PendingPermissionsPerTurn = tt.limit
			}
			h.open(c, []acp.AgentSpec{fakeSpec(t, "fake")})
			limit := c.PendingPermissionsPerTurn
			th := h.thread("fake")
			sub := h.watch(th)
			ctx := context.Background()
			if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "permissions 40"}); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for len(ids) < limit {
				ids = append(ids, payload[hub.Permission](t, until(t, sub, hub.EventPermissionRequired), "permission").ID)
			}
			// Every request has arrived once the refusals are logged: only
			// then approve (an approval frees a slot for a late request).
			waitUntil(t, "the refusals to be logged", func() bool {
				return strings.Count(logs.String(), "too many pending in the turn") >= 40-limit
			})
			for _, id := range ids {
				if _, err := h.e.DecidePermission(ctx, alice, id, hub.Decision{Outcome: "approved"}); err != nil {
					t.Fatal(err)
				}
			}
			turn := payload[hub.Turn](t, until(t, sub, hub.EventTurnCompleted), "turn")
			want := "permissions selected:allow-once=" + strconv.Itoa(limit) + " selected:reject-once=" + strconv.Itoa(40-limit)
			if !strings.HasSuffix(turn.Output, want) {
				t.Fatalf("agent said %q, want %q", turn.Output, want)
			}
			ps, _ := h.e.ListPermissions(ctx, alice, "")
			if len(ps) != limit {
				t.Fatalf("%d permissions stored, want %d", len(ps), limit)
			}
			if n := strings.Count(logs.String(), "too many pending in the turn"); n != 40-limit {
				t.Fatalf("%d refusals logged, want %d:\n%s", n, 40-limit, logs)
			}
		})
	}
}

// HistoryPage walks a thread's turns a page at a time with their own
// events; a whole history over the size bound is PAYLOAD_TOO_LARGE
// (HISTORY_TOO_LARGE), while pages shrink to fit it (one turn at least),
// and a single turn over it is PAYLOAD_TOO_LARGE naming the turn.
func TestHistoryPages(t *testing.T) {
	const bound = 200 << 10
	h := &harness{t: t, dbPath: t.TempDir() + "/hub.db", cwd: t.TempDir(), maxHistory: bound}
	h.open(engine.DefaultConfig(), []acp.AgentSpec{fakeSpec(t, "fake")})
	ctx := context.Background()
	th := h.thread("fake")
	sub := h.watch(th)
	var ids []string
	for i := range 5 {
		ids = append(ids, h.run(th, sub, "echo turn "+strconv.Itoa(i)).ID)
	}
	pages := func(limit int, events bool) [][]string {
		t.Helper()
		var got [][]string
		q := hub.HistoryQuery{IncludeEvents: events, Limit: limit}
		for {
			p, err := h.e.HistoryPage(ctx, alice, th.ID, q)
			if err != nil {
				t.Fatal(err)
			}
			var page []string
			for _, tu := range p.Turns {
				page = append(page, tu.ID)
				if events && (len(tu.Events) < 3 || tu.Events[0].Type != hub.EventTurnStarted || tu.Events[0].TurnID != tu.ID) {
					t.Fatalf("turn %s events %+v", tu.ID, tu.Events)
				}
			}
			got = append(got, page)
			if p.NextCursor == "" {
				return got
			}
			q.Cursor = p.NextCursor
		}
	}
	if got := pages(2, true); len(got) != 3 || strings.Join(got[0], ",") != ids[0]+","+ids[1] || strings.Join(got[2], ",") != ids[4] {
		t.Fatalf("pages of 2: %v (turns %v)", got, ids)
	}
	if _, err := h.e.HistoryPage(ctx, hub.Caller{ClientID: "bob"}, th.ID, hub.HistoryQuery{}); hub.ErrorCode(err) != hub.CodeNotFound {
		t.Fatalf("bob: %v", err)
	}
	if _, err := h.e.HistoryPage(ctx, alice, th.ID, hub.HistoryQuery{Cursor: "%%%"}); hub.ErrorCode(err) != hub.CodeInvalidArgument {
		t.Fatalf("bad cursor: %v", err)
	}

	// Two turns of 60 KB of output and events each: the whole history is
	// over the 200 KiB bound (output, message and turn_completed: 180 KB a turn), not without events.
	for range 2 {
		ids = append(ids, h.run(th, sub, "bigline 60000").ID)
	}
	_, err := h.e.History(ctx, alice, th.ID, true, false)
	var he *hub.Error
	if !asError(err, &he) || he.Code != hub.CodePayloadTooLarge || he.Details["reason"] != hub.ReasonHistoryTooLarge {
		t.Fatalf("whole history: %v", err)
	}
	if hist, err := h.e.History(ctx, alice, th.ID, false, false); err != nil || len(hist) != 7 {
		t.Fatalf("history without events: %d turns, %v", len(hist), err)
	}
	got := pages(10, true)
	var flat []string
	for _, p := range got {
		flat = append(flat, p...)
	}
	if len(got) < 2 || strings.Join(flat, ",") != strings.Join(ids, ",") {
		t.Fatalf("pages under the bound: %v, want every turn once (%v)", got, ids)
	}

	// One turn alone over the bound.
	big := h.run(th, sub, "bigline 100000")
	q := hub.HistoryQuery{IncludeEvents: true, Limit: 1}
	for {
		p, err := h.e.HistoryPage(ctx, alice, th.ID, q)
		if err != nil {
			if !asError(err, &he) || he.Code != hub.CodePayloadTooLarge || he.Details["turnId"] != big.ID {
				t.Fatalf("oversized turn: %v", err)
			}
			break
		}
		if p.NextCursor == "" {
			t.Fatal("the oversized turn was served")
		}
		q.Cursor = p.NextCursor
	}
}
