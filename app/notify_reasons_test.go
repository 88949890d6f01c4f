//go:build linux && !headless

package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hub/switchboard/acp/acptest/testkit"
	"github.com/switchboard-hub/switchboard/hub"
)

// TestNotificationReasons: each reason's switch (notifications.permission,
// .question, .error, .budget; .turnCompleted has its own test), changed
// live through the settings (the YAML file rewritten, reloaded), against
// the fake notification server; and the window's rule: nothing about the
// thread a focused window shows, while another thread's still notify.
func TestNotificationReasons(t *testing.T) {
	r := newNotifyRig(t)
	ctx := context.Background()
	settings := r.h.settingsService()
	set := func(t *testing.T, p hub.NotificationSettingsPatch) {
		t.Helper()
		if _, err := settings.UpdateSettings(ctx, hub.SettingsPatch{Notifications: &p}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("settings %+v to be live", p), func() bool {
			c := r.h.currentConfig().Notifications
			return (p.Question == nil || c.Question == *p.Question) && (p.Permission == nil || c.Permission == *p.Permission) &&
				(p.Error == nil || c.Error == *p.Error) && (p.Budget == nil || c.Budget == *p.Budget)
		})
	}
	on, off := true, false
	// quiet asserts that no notification whose id starts with prefix
	// arrived once the notifier handled every event so far.
	quiet := func(t *testing.T, calls int, prefix string) {
		t.Helper()
		r.waitHandled(t)
		r.notifd.mu.Lock()
		defer r.notifd.mu.Unlock()
		for _, c := range r.notifd.calls[calls:] {
			if v, _ := c.Hints["x-notification-id"].Value().(string); strings.HasPrefix(v, prefix) {
				t.Errorf("notified %+v", c)
			}
		}
	}
	calls := func() int { r.notifd.mu.Lock(); defer r.notifd.mu.Unlock(); return len(r.notifd.calls) }
	newThread := func(t *testing.T) hub.Thread {
		th, err := r.b.CreateThread(hub.CreateThreadRequest{Agent: "fake", Cwd: r.cwd})
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	start := func(t *testing.T, th hub.Thread, input string) hub.Turn {
		tu, err := r.b.StartTurn(th.ID, hub.TurnInput{Input: input})
		if err != nil {
			t.Fatal(err)
		}
		return tu
	}
	const form = `elicit {"mode":"form","message":"Which <b>branch</b>?","requestedSchema":{"type":"object","properties":{"b":{"type":"string"}}}}`

	t.Run("question", func(t *testing.T) {
		th := newThread(t)
		tu := start(t, th, form)
		c := r.notifd.waitCall(t, func(n notifyCall) bool { return strings.HasPrefix(n.Summary, "Fake asks") })
		if c.Summary != "Fake asks you a question" || !strings.Contains(c.Body, "Which &lt;b&gt;branch&lt;/b&gt;?") || len(c.Actions) > 2 {
			t.Errorf("question notification %+v: want the message as text, no Approve/Deny", c)
		}
		page, err := r.h.engine.QueryElicitations(ctx, windowCaller, hub.ElicitationQuery{Status: hub.ElicitationPending, ThreadID: th.ID})
		if err != nil || len(page.Elicitations) != 1 {
			t.Fatalf("pending %+v %v", page, err)
		}
		if _, err := r.h.engine.AnswerElicitation(ctx, windowCaller, page.Elicitations[0].ID, hub.ElicitationAnswer{Action: hub.ElicitDecline}); err != nil {
			t.Fatal(err)
		}
		waitTurn(t, r.b, th.ID, tu.ID)
		r.waitClosed(t, c.ID) // answered: withdrawn

		set(t, hub.NotificationSettingsPatch{Question: &off})
		n := calls()
		tu = start(t, th, form)
		r.waitPending(t, th.ID)
		quiet(t, n, "ask:")
		r.h.engine.CancelTurn(ctx, windowCaller, tu.ID)
		waitTurn(t, r.b, th.ID, tu.ID)
		set(t, hub.NotificationSettingsPatch{Question: &on})
	})

	t.Run("looking at the thread", func(t *testing.T) {
		th, other := newThread(t), newThread(t)
		r.n.focused.Store(true)
		r.n.viewing.Store(th.ID)
		defer r.n.focused.Store(false)
		n := calls()
		tu := start(t, th, "permission")
		r.waitPermission(t, th.ID)
		quiet(t, n, "perm:")
		r.h.engine.CancelTurn(ctx, windowCaller, tu.ID)
		waitTurn(t, r.b, th.ID, tu.ID)
		// Another thread, or the same one in an unfocused window: notified.
		tu = start(t, other, "permission")
		r.notifd.waitCall(t, func(n notifyCall) bool {
			v, _ := n.Hints["x-notification-id"].Value().(string)
			return strings.HasPrefix(v, "perm:") && strings.HasPrefix(n.Summary, "Fake:")
		})
		r.h.engine.CancelTurn(ctx, windowCaller, tu.ID)
		waitTurn(t, r.b, other.ID, tu.ID)
	})

	t.Run("permission off", func(t *testing.T) {
		set(t, hub.NotificationSettingsPatch{Permission: &off})
		defer set(t, hub.NotificationSettingsPatch{Permission: &on})
		th := newThread(t)
		n := calls()
		tu := start(t, th, "permission")
		r.waitPermission(t, th.ID)
		quiet(t, n, "perm:")
		r.h.engine.CancelTurn(ctx, windowCaller, tu.ID)
		waitTurn(t, r.b, th.ID, tu.ID)
	})

	t.Run("error", func(t *testing.T) {
		th := newThread(t)
		r.n.focused.Store(true) // focused on no thread: an error still notifies
		defer r.n.focused.Store(false)
		tu := start(t, th, "crash")
		c := r.notifd.waitCall(t, func(n notifyCall) bool { return strings.Contains(n.Summary, "turn failed") })
		if v, _ := c.Hints["x-notification-id"].Value().(string); v != "turn:"+th.ID+"/"+tu.ID {
			t.Errorf("error notification %+v", c)
		}
		set(t, hub.NotificationSettingsPatch{Error: &off})
		defer set(t, hub.NotificationSettingsPatch{Error: &on})
		r.n.focused.Store(false)
		th = newThread(t)
		n := calls()
		tu = start(t, th, "crash")
		waitTurn(t, r.b, th.ID, tu.ID)
		quiet(t, n, "turn:")
	})

	t.Run("budget", func(t *testing.T) {
		ev := hub.Event{Seq: 1, Type: hub.EventBudgetWarning, At: time.Now(),
			Payload: []byte(`{"budget":"daily","currency":"USD","spent":8,"limit":10,"crossedBy":{"threadId":"x"}}`)}
		r.n.handle(ctx, ev)
		r.notifd.waitCall(t, func(n notifyCall) bool { return strings.Contains(n.Summary, "daily budget at 80 %") })
		set(t, hub.NotificationSettingsPatch{Budget: &off})
		defer set(t, hub.NotificationSettingsPatch{Budget: &on})
		n := calls()
		ev.Payload = []byte(`{"budget":"weekly","currency":"USD","spent":8,"limit":10}`)
		r.n.handle(ctx, ev)
		quiet(t, n, "budget:")
	})
}

// waitHandled waits until the notifier has handled every event stored so
// far.
func (r *notifyRig) waitHandled(t *testing.T) {
	t.Helper()
	sub, err := r.h.engine.Subscribe(context.Background(), windowCaller, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	last := int64(0)
	func() {
		defer sub.Close()
		for {
			select {
			case e, ok := <-sub.Events():
				if !ok {
					return
				}
				last = e.Seq
			case <-time.After(200 * time.Millisecond):
				return
			}
		}
	}()
	waitFor(t, fmt.Sprintf("the notifier to handle event %d", last), func() bool { return r.n.handled.Load() >= last })
	// Nothing is on its way over the bus: Notify is a method call, and the
	// server records each before it answers.
}

// waitPending waits until the thread has a pending elicitation.
func (r *notifyRig) waitPending(t *testing.T, threadID string) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "a pending elicitation", func() bool {
		page, _ := r.h.engine.QueryElicitations(context.Background(), windowCaller, hub.ElicitationQuery{Status: hub.ElicitationPending, ThreadID: threadID})
		return len(page.Elicitations) > 0
	})
}

// waitPermission waits until the thread has a pending permission.
func (r *notifyRig) waitPermission(t *testing.T, threadID string) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "a pending permission", func() bool {
		ps, _ := r.h.engine.ListPermissions(context.Background(), windowCaller, hub.PermissionPending)
		return slices.ContainsFunc(ps, func(p hub.Permission) bool { return p.ThreadID == threadID })
	})
}

// waitClosed waits until the server was asked to close notification id.
func (r *notifyRig) waitClosed(t *testing.T, id uint32) {
	t.Helper()
	waitFor(t, fmt.Sprintf("notification %d to be closed", id), func() bool {
		r.notifd.mu.Lock()
		defer r.notifd.mu.Unlock()
		return slices.Contains(r.notifd.closed, id)
	})
}
