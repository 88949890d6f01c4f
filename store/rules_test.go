package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestRememberedRules(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("th_1", "c1", 0), thread("th_2", "c1", 1)}})
	r1 := hub.RememberedRule{ID: "ru_1", Scope: "thread", ThreadID: "th_1", Agent: "claude", Kind: "execute", Command: "go test ./...",
		RunsIn: "/src/c1", EnvKey: "k1", Decision: "allow", Title: "Run tests", CreatedAt: at(2), CreatedBy: "window", PermissionID: "pm_1"}
	r2 := hub.RememberedRule{ID: "ru_2", Scope: "folder", Cwd: "/src/c1", Agent: "claude", Kind: "read", Decision: "deny",
		CreatedAt: at(3), CreatedBy: "client:c1", PermissionID: "pm_2", ClientID: "c1"}
	mustCommit(t, db, &hub.Write{Rules: []hub.RememberedRule{r1, r2}})
	got, err := db.ListRules(ctx)
	if err != nil || !reflect.DeepEqual(got, []hub.RememberedRule{r1, r2}) {
		t.Fatalf("ListRules = %+v, %v", got, err)
	}
	if err := db.Commit(ctx, &hub.Write{Rules: []hub.RememberedRule{r1}}); err == nil {
		t.Fatal("a duplicate rule id was stored")
	}
	wantCode(t, db.Commit(ctx, &hub.Write{DeleteRules: []string{"ru_nope"}}), hub.CodeNotFound)
	mustCommit(t, db, &hub.Write{DeleteRules: []string{"ru_2"}})
	// A deleted thread's rules go with it.
	mustCommit(t, db, &hub.Write{DeleteThreads: []string{"th_1"}})
	if got, _ := db.ListRules(ctx); len(got) != 0 {
		t.Fatalf("after deletes %+v", got)
	}
}

func TestEscalate(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	p := permission("pm_1", "th_1", "tu_1", 2)
	p.Agent = "claude"
	mustCommit(t, db, &hub.Write{Threads: []hub.Thread{thread("th_1", "c1", 0)}, Turns: []hub.Turn{turn("tu_1", "th_1", 1)}, Permissions: []hub.Permission{p}})
	when := at(5)
	e := p
	e.EscalatedAt = &when
	mustCommit(t, db, &hub.Write{Escalate: &e})
	got, err := db.GetPermission(ctx, "pm_1")
	if err != nil || got.EscalatedAt == nil || !got.EscalatedAt.Equal(when) || got.Agent != "claude" {
		t.Fatalf("%+v %v", got, err)
	}
	d := got
	decided := at(6)
	d.Status, d.DecidedBy, d.OptionID, d.DecidedAt = hub.PermissionApproved, "window", "allow", &decided
	mustCommit(t, db, &hub.Write{Decide: &d})
	wantCode(t, db.Commit(ctx, &hub.Write{Escalate: &e}), hub.CodeConflict)
	wantCode(t, db.Commit(ctx, &hub.Write{Escalate: &hub.Permission{ID: "pm_nope", EscalatedAt: &when}}), hub.CodeNotFound)
	if got, _ := db.GetPermission(ctx, "pm_1"); got.EscalatedAt == nil || got.Status != hub.PermissionApproved {
		t.Fatalf("decision lost the escalation %+v", got)
	}
}

func TestQueryPermissions(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	th2 := thread("th_2", "c2", 1)
	th2.Agent = "gemini"
	w := &hub.Write{Threads: []hub.Thread{thread("th_1", "c1", 0), th2}, Turns: []hub.Turn{turn("tu_1", "th_1", 0), turn("tu_2", "th_2", 1)}}
	decided := at(100)
	for i, by := range []string{"rule:a", "rule:b", "window", "remembered:ru_1", "", "client:x%_"} {
		th, agent := "th_1", "claude"
		if i%2 == 1 {
			th, agent = "th_2", "gemini"
		}
		p := permission("pm_"+string(rune('a'+i)), th, "tu_"+th[3:], 10+i)
		p.Agent = agent
		if by != "" {
			p.Status, p.DecidedBy, p.DecidedAt = hub.PermissionApproved, by, &decided
		}
		w.Permissions = append(w.Permissions, p)
	}
	mustCommit(t, db, w)
	ids := func(f hub.PermissionFilter) ([]string, string) {
		t.Helper()
		ps, next, err := db.QueryPermissions(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out, next
	}
	for _, tt := range []struct {
		name string
		f    hub.PermissionFilter
		want []string
	}{
		{"all, newest first", hub.PermissionFilter{All: true}, []string{"pm_f", "pm_e", "pm_d", "pm_c", "pm_b", "pm_a"}},
		{"one client", hub.PermissionFilter{ClientID: "c1"}, []string{"pm_e", "pm_c", "pm_a"}},
		{"no client", hub.PermissionFilter{}, nil},
		{"rule prefix", hub.PermissionFilter{All: true, DecidedBy: "rule:"}, []string{"pm_b", "pm_a"}},
		{"prefix is literal", hub.PermissionFilter{All: true, DecidedBy: "client:x%"}, []string{"pm_f"}},
		{"wildcards are not", hub.PermissionFilter{All: true, DecidedBy: "rule_"}, nil},
		{"agent", hub.PermissionFilter{All: true, Agent: "gemini"}, []string{"pm_f", "pm_d", "pm_b"}},
		{"pending", hub.PermissionFilter{All: true, Status: hub.PermissionPending}, []string{"pm_e"}},
		{"thread", hub.PermissionFilter{All: true, ThreadID: "th_1"}, []string{"pm_e", "pm_c", "pm_a"}},
		{"from, to", hub.PermissionFilter{All: true, From: at(11), To: at(13)}, []string{"pm_d", "pm_c", "pm_b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, next := ids(tt.f); !reflect.DeepEqual(got, tt.want) || next != "" {
				t.Fatalf("%v (next %q), want %v", got, next, tt.want)
			}
		})
	}
	// Pages of 4 then 2, no repeat; a bad cursor is INVALID_ARGUMENT.
	first, next := ids(hub.PermissionFilter{All: true, Limit: 4})
	second, last := ids(hub.PermissionFilter{All: true, Limit: 4, Cursor: next})
	if len(first) != 4 || next == "" || !reflect.DeepEqual(second, []string{"pm_b", "pm_a"}) || last != "" {
		t.Fatalf("pages %v %q %v %q", first, next, second, last)
	}
	_, _, err := db.QueryPermissions(ctx, hub.PermissionFilter{All: true, Cursor: "!!"})
	wantCode(t, err, hub.CodeInvalidArgument)
}
