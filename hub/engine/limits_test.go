package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/engine"
)

// lockedBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An agent asking 40 permissions at once in one turn gets 32 in front of
// the user (limits.pendingPermissionsPerTurn) and the other 8 refused at
// once with its reject_once option, logged, never raised.
func TestPendingPermissionsPerTurnBounded(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit int
	}{{"default", 0}, {"configured", 5}} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &lockedBuffer{}
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
