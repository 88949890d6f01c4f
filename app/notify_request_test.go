//go:build unix

package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/app/config"
	"github.com/switchboard-hub/switchboard/app/notify"
	"github.com/switchboard-hub/switchboard/hub"
)

// decisions is a hub.Service that knows no thread and records decisions.
type decisions struct {
	noThreads
	got []hub.Decision
}

func (d *decisions) DecidePermission(_ context.Context, _ hub.Caller, _ string, x hub.Decision) (hub.DecisionResult, error) {
	d.got = append(d.got, x)
	return hub.DecisionResult{}, nil
}

func (*decisions) History(context.Context, hub.Caller, string, bool, bool) ([]hub.TurnHistory, error) {
	return nil, hub.Errorf(hub.CodeNotFound, "no thread")
}

func describedPerm(id, kind string, r *hub.PermissionRequest) hub.Event {
	p := hub.Permission{ID: id, ThreadID: "th", Status: hub.PermissionPending, Kind: kind, Request: r,
		ToolCall: []byte(`{"toolCallId":"c","title":"npm test"}`), Deadline: time.Now().Add(time.Hour)}
	b, _ := json.Marshal(map[string]any{"permission": p})
	return hub.Event{Type: hub.EventPermissionRequired, ThreadID: "th", Payload: b}
}

// A described permission's notification shows what runs, not the agent's
// title: the title says what kind of request it is, the body the
// command, folder, environment and warnings.
func TestNotifierDescribedPermission(t *testing.T) {
	var c config.Config
	c.Notifications.Enabled, c.Notifications.Permission = true, true
	terminal := &hub.PermissionRequest{
		Kind: "execute", Title: "npm test", Command: "touch X", Argv: []string{"touch", "X"}, Cwd: "/home/me/app",
		Env:   []hub.EnvVar{{Name: "PATH", Value: "/tmp/evil:/usr/bin"}},
		Flags: []string{hub.FlagEnvProgram, hub.FlagTitleDiffers},
	}
	for _, tc := range []struct {
		name, kind    string
		r             *hub.PermissionRequest
		title, body   string
		approve, once bool
	}{
		{"agent", hub.PermKindAgent, terminal, "Agent: Run a command",
			"Runs: touch X\nIn: /home/me/app\nSets: PATH=/tmp/evil:/usr/bin\nThe agent says: “npm test”\n" +
				"⚠ Sets variables that change which program runs\n⚠ The agent's title is not the command that runs", true, false},
		{"git", hub.PermKindGit, &hub.PermissionRequest{Kind: "edit", Paths: []string{"/home/me/app/.git/config"}, Flags: []string{hub.FlagGitSettings}},
			"Agent: Change git's own settings",
			"File: /home/me/app/.git/config\n⚠ Changes git's own settings — git may run commands from these files", true, true},
		{"hub terminal", hub.PermKindTerminal, &hub.PermissionRequest{Kind: "execute", Title: "ls", Argv: []string{"ls"}, Cwd: "/w"},
			"Agent: Run a command", "Runs: ls\nIn: /w", true, false},
		// Described by its title alone: notified from its tool call, as before.
		{"title only", hub.PermKindAgent, &hub.PermissionRequest{Kind: "think", Title: "Think", Flags: []string{hub.FlagMalformed}}, "Agent: npm test",
			"npm test\nNot all of it fits here: open it in Switchboard to decide.", false, false},
		{"too long", hub.PermKindTerminal, &hub.PermissionRequest{Argv: []string{"cat", "/a", "/b"}, Cwd: "/w",
			Paths: []string{"/a", "/b", "/c", "/d"}, Flags: []string{hub.FlagOutside, hub.FlagShell}},
			"Agent: Run a command",
			"Runs: cat /a /b\nIn: /w\n⚠ Reaches outside the thread's folder\n⚠ Runs through a shell: the exact program is not known in advance\n" +
				"Not all of it fits here: open it in Switchboard to decide.", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent := &sentRecorder{}
			svc := &decisions{}
			n := newNotifier(svc, sent, func() config.Config { return c }, func(string, string, string) {}, slog.New(slog.DiscardHandler))
			n.handle(context.Background(), describedPerm("p1", tc.kind, tc.r))
			if len(sent.sent) != 1 {
				t.Fatalf("sent %+v", sent.sent)
			}
			s := sent.sent[0]
			if s.Title != tc.title || s.Body != tc.body || s.Approve != tc.approve || s.Once != tc.once {
				t.Errorf("notification\n title %q\n body %q\n approve %v once %v\nwant\n title %q\n body %q\n approve %v once %v",
					s.Title, s.Body, s.Approve, s.Once, tc.title, tc.body, tc.approve, tc.once)
			}
			if (&hub.Permission{Kind: tc.kind, Request: tc.r}).Described() && strings.Contains(s.Title, "npm test") {
				t.Errorf("the agent's title is in the notification's title: %q", s.Title)
			}
			n.respond(context.Background(), s.ID, notify.ActionRemember)
			n.respond(context.Background(), s.ID, notify.ActionApprove)
			var want []hub.Decision
			if tc.approve && !tc.once {
				want = append(want, hub.Decision{Outcome: hub.PermissionApproved, Remember: hub.RememberThread})
			}
			if tc.approve {
				want = append(want, hub.Decision{Outcome: hub.PermissionApproved})
			}
			if len(svc.got) != len(want) || len(want) > 0 && svc.got[0] != want[0] {
				t.Errorf("decisions %+v, want %+v", svc.got, want)
			}
		})
	}
}
