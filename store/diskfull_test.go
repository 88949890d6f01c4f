package store

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// A write the disk has no room for (SQLITE_FULL: here a page limit the
// test sets on the writer's connection) fails with hub.ErrDiskFull in its
// chain and details.reason DISK_FULL, and the store takes writes again
// once there is room.
func TestDiskFullError(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("t1", "c", 1)}})
	var pages int64
	if err := db.conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.conn.ExecContext(ctx, "PRAGMA max_page_count = "+itoa(pages)); err != nil {
		t.Fatal(err)
	}
	big := event(hub.EventMessageDelta, "t1", "", 2)
	big.Payload, _ = json.Marshal(map[string]string{"text": strings.Repeat("x", 1<<20)})
	err := db.Commit(ctx, &hub.Write{Events: []hub.Event{big}})
	var he *hub.Error
	if !errors.Is(err, hub.ErrDiskFull) || !errors.As(err, &he) || he.Code != hub.CodeInternal || he.Details["reason"] != hub.ReasonDiskFull {
		t.Fatalf("a write past the disk: %v", err)
	}
	if _, err := db.conn.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	big.Seq = 0
	mustCommit(t, db, &hub.Write{Events: []hub.Event{big}})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
