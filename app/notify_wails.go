//go:build !headless && !linux

package app

import (
	"context"
	"log/slog"

	"github.com/switchboard-hub/switchboard/app/notify"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// The notification categories: notifyCategoryPermission carries
// Approve, Deny and Always allow here; notifyCategoryOnce Approve and
// Deny only, for a request the hub never remembers (git's own settings, a
// spending limit).
const (
	notifyCategoryPermission = "switchboard-permission"
	notifyCategoryOnce       = "switchboard-permission-once"
)

// wailsNotifier sends notifications through Wails v2.16's notification
// service (macOS, Windows; Linux has its own D-Bus sender, notify_dbus.go).
// It writes its categories into os.UserConfigDir()/<executable name>/.
type wailsNotifier struct {
	ctx context.Context // Wails' context, from OnStartup
}

// startDesktopNotifications initialises Wails' notifications, registers
// the Approve/Deny category and routes responses to respond. It returns
// nil when notifications are not available: the app runs on without them.
func startDesktopNotifications(wctx context.Context, log *slog.Logger, respond func(id, action string)) desktopNotifier {
	if !wailsruntime.IsNotificationAvailable(wctx) {
		return nil
	}
	if err := wailsruntime.InitializeNotifications(wctx); err != nil {
		log.Warn("desktop notifications are off", "err", err)
		return nil
	}
	err := wailsruntime.RegisterNotificationCategory(wctx, wailsruntime.NotificationCategory{
		ID: notifyCategoryPermission,
		Actions: []wailsruntime.NotificationAction{
			{ID: notify.ActionApprove, Title: "Approve"},
			{ID: notify.ActionDeny, Title: "Deny", Destructive: true},
			{ID: notify.ActionRemember, Title: "Always allow here"},
		},
	})
	if err == nil {
		err = wailsruntime.RegisterNotificationCategory(wctx, wailsruntime.NotificationCategory{
			ID: notifyCategoryOnce,
			Actions: []wailsruntime.NotificationAction{
				{ID: notify.ActionApprove, Title: "Approve"},
				{ID: notify.ActionDeny, Title: "Deny", Destructive: true},
			},
		})
	}
	if err != nil {
		log.Warn("notification actions are off", "err", err)
	}
	wailsruntime.OnNotificationResponse(wctx, func(r wailsruntime.NotificationResult) {
		if r.Error != nil {
			log.Warn("notification response", "err", r.Error)
			return
		}
		respond(r.Response.ID, r.Response.ActionIdentifier)
	})
	return &wailsNotifier{ctx: wctx}
}

// Send shows n. Wails has no urgency: an escalated (Critical) permission
// is told by its title ("Still waiting — …") and replaces the first
// notification through the same ID.
func (w *wailsNotifier) Send(n notify.Notification) error {
	if n.Critical {
		_ = wailsruntime.RemoveNotification(w.ctx, n.ID)
	}
	o := wailsruntime.NotificationOptions{ID: n.ID, Title: n.Title, Body: n.Body,
		Data: map[string]any{"threadId": n.ThreadID}}
	if n.Approve {
		o.CategoryID = notifyCategoryPermission
		if n.Once {
			o.CategoryID = notifyCategoryOnce
		}
		return wailsruntime.SendNotificationWithActions(w.ctx, o)
	}
	return wailsruntime.SendNotification(w.ctx, o)
}

func (w *wailsNotifier) Remove(id string) { _ = wailsruntime.RemoveNotification(w.ctx, id) }

func (w *wailsNotifier) close() { wailsruntime.CleanupNotifications(w.ctx) }
