//go:build unix

package engine_test

import (
	"context"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// Deleting a thread while its turn runs stays deleted. (Regression: the
// cancelled turn's final write put the thread back — undeleted, idle —
// when it landed after the deletion, so DELETE answered 204 and the
// thread was still there.)
func TestDeleteThreadWhileTurnRuns(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	for i := range 10 {
		th := h.thread("fake")
		sub := h.watch(th)
		input := "hang"
		if i%2 == 1 {
			input = "permission"
		}
		turn, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: input})
		if err != nil {
			t.Fatal(err)
		}
		if input == "permission" {
			until(t, sub, hub.EventPermissionRequired)
		}
		if err := h.e.DeleteThread(ctx, alice, th.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := h.e.GetThread(ctx, alice, th.ID); hub.ErrorCode(err) != hub.CodeNotFound {
			t.Fatalf("%s turn: after DeleteThread, GetThread = %+v, %v; want NOT_FOUND", input, got, err)
		}
		page, err := h.e.ListThreads(ctx, alice, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range page.Threads {
			if x.ID == th.ID {
				t.Fatalf("%s turn: the deleted thread is listed: %+v", input, x)
			}
		}
		if _, err := h.e.StartTurn(ctx, alice, th.ID, hub.TurnInput{Input: "echo x"}); hub.ErrorCode(err) != hub.CodeNotFound {
			t.Fatalf("a turn on the deleted thread: %v, want NOT_FOUND", err)
		}
		if _, err := h.e.CancelTurn(ctx, alice, turn.ID); err != nil && hub.ErrorCode(err) != hub.CodeNotFound {
			t.Fatalf("cancelling its turn: %v", err)
		}
		ps, err := h.e.ListPermissions(ctx, hub.Caller{ClientID: "tray", All: true}, hub.PermissionPending)
		if err != nil || len(ps) != 0 {
			t.Fatalf("pending permissions after the deletion: %+v, %v", ps, err)
		}
	}
}
