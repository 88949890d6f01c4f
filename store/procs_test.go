package store

import (
	"context"
	"reflect"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

func TestAgentProcesses(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	p1 := hub.AgentProcess{PID: 4242, StartTime: at(1), ThreadID: "t1", Agent: "claude"}
	p2 := hub.AgentProcess{PID: 17, Agent: "codex"} // zero start time
	mustCommit(t, db, &hub.Write{AgentProcs: []hub.AgentProcess{p1, p2}})
	got, err := db.AgentProcesses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []hub.AgentProcess{p2, p1}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// Recording a pid again replaces it (a reused pid); forgetting removes.
	p1b := hub.AgentProcess{PID: 4242, StartTime: at(2), ThreadID: "t2", Agent: "gemini"}
	mustCommit(t, db, &hub.Write{AgentProcs: []hub.AgentProcess{p1b}, ForgetProcs: []int{17, 99999}})
	got, _ = db.AgentProcesses(ctx)
	if want := []hub.AgentProcess{p1b}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	mustCommit(t, db, &hub.Write{ForgetProcs: []int{4242}})
	if got, _ = db.AgentProcesses(ctx); len(got) != 0 {
		t.Errorf("after forgetting all: %+v", got)
	}
}
