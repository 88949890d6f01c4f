package store

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestPermissionRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	decided := at(20)
	full := permission("p1", "t1", "u1", 5)
	full.Status, full.DecidedBy, full.OptionID, full.DecidedAt = hub.PermissionApproved, "tray", "allow", &decided
	noOpts := permission("p2", "t1", "u1", 6)
	noOpts.Options, noOpts.ToolCall = nil, nil
	emptyOpts := permission("p3", "t1", "u1", 7)
	emptyOpts.Options = []hub.PermissionOption{}
	mustCommit(t, db, &hub.Write{
		Threads:     []hub.Thread{thread("t1", "c", 1)},
		Permissions: []hub.Permission{full, noOpts, emptyOpts},
	})
	for _, want := range []hub.Permission{full, noOpts, emptyOpts} {
		got, err := db.GetPermission(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetPermission(%s):\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
	_, err := db.GetPermission(ctx, "nope")
	wantCode(t, err, hub.CodeNotFound)
}

func TestListPermissions(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := &hub.Write{Threads: []hub.Thread{thread("t1", "c1", 1), thread("t2", "c1", 1), thread("t3", "c2", 1)}}
	for i, th := range []string{"t1", "t2", "t3", "t1"} {
		p := permission(fmt.Sprintf("p%d", i), th, "u", 10-i) // created newest first
		if i == 1 {
			p.Status = hub.PermissionExpired
		}
		w.Permissions = append(w.Permissions, p)
	}
	mustCommit(t, db, w)
	for name, tc := range map[string]struct {
		f    hub.PermissionFilter
		want []string
	}{
		"client":         {hub.PermissionFilter{ClientID: "c1"}, []string{"p3", "p1", "p0"}},
		"client pending": {hub.PermissionFilter{ClientID: "c1", Status: hub.PermissionPending}, []string{"p3", "p0"}},
		"other client":   {hub.PermissionFilter{ClientID: "c2"}, []string{"p2"}},
		"no client":      {hub.PermissionFilter{}, nil},
		"all":            {hub.PermissionFilter{All: true}, []string{"p3", "p2", "p1", "p0"}},
		"all pending":    {hub.PermissionFilter{All: true, Status: hub.PermissionPending}, []string{"p3", "p2", "p0"}},
		"thread":         {hub.PermissionFilter{All: true, ThreadID: "t1"}, []string{"p3", "p0"}},
		"thread other":   {hub.PermissionFilter{ClientID: "c2", ThreadID: "t1"}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			ps, err := db.ListPermissions(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.ID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func decision(id, status, by string) *hub.Permission {
	d := at(100)
	return &hub.Permission{ID: id, Status: status, DecidedBy: by, OptionID: "allow", DecidedAt: &d}
}

func TestDecide(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{
		Threads:     []hub.Thread{thread("t1", "c", 1)},
		Permissions: []hub.Permission{permission("p1", "t1", "u1", 2)},
	})
	ev := event(hub.EventPermissionResolved, "t1", "u1", 100)
	w := &hub.Write{Decide: decision("p1", hub.PermissionApproved, "window"), Events: []hub.Event{ev}}
	mustCommit(t, db, w)
	got, _ := db.GetPermission(ctx, "p1")
	if got.Status != hub.PermissionApproved || got.DecidedBy != "window" || got.OptionID != "allow" ||
		got.DecidedAt == nil || !got.DecidedAt.Equal(at(100)) {
		t.Errorf("after Decide: %+v", got)
	}
	// A second decision: CONFLICT, and its Write (with its event) is not applied.
	w2 := &hub.Write{Decide: decision("p1", hub.PermissionDeclined, "tray"), Events: []hub.Event{ev}}
	err := db.Commit(ctx, w2)
	wantCode(t, err, hub.CodeConflict)
	if w2.Events[0].Seq != 0 {
		t.Errorf("refused write's event has seq %d", w2.Events[0].Seq)
	}
	if last, _ := db.LastSeq(ctx); last != 1 {
		t.Errorf("LastSeq %d after a refused write, want 1", last)
	}
	err = db.Commit(ctx, &hub.Write{Decide: decision("ghost", hub.PermissionApproved, "tray")})
	wantCode(t, err, hub.CodeNotFound)
	err = db.Commit(ctx, &hub.Write{Decide: decision("p1", hub.PermissionPending, "tray")})
	wantCode(t, err, hub.CodeInvalidArgument)
}

// TestDecideRace: 20 deciders race for one permission; exactly one wins.
func TestDecideRace(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustCommit(t, db, &hub.Write{
		Threads:     []hub.Thread{thread("t1", "c", 1)},
		Permissions: []hub.Permission{permission("p1", "t1", "u1", 2)},
	})
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = db.Commit(ctx, &hub.Write{Decide: decision("p1", hub.PermissionApproved, fmt.Sprint("d", i))})
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch hub.ErrorCode(err) {
		case "":
			if winner >= 0 {
				t.Fatalf("deciders %d and %d both succeeded", winner, i)
			}
			winner = i
		case hub.CodeConflict:
		default:
			t.Errorf("decider %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no decider succeeded")
	}
	got, _ := db.GetPermission(ctx, "p1")
	if got.DecidedBy != fmt.Sprint("d", winner) {
		t.Errorf("decided by %q, winner was d%d", got.DecidedBy, winner)
	}
}
