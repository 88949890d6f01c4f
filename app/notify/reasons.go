package notify

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// TurnEnded is the notification of turn t's end in thread threadID: the
// agent (its name), the status and the thread's title when th is known
// (nil: "Turn <status>" alone), then the turn's error, else its output.
// A click opens the window on the turn.
func TurnEnded(threadID string, t hub.Turn, th *hub.Thread, agent string) Notification {
	title := "Turn " + t.Status
	if th != nil {
		title = agent + ": turn " + t.Status
		if th.Title != "" {
			title += " — " + th.Title
		}
	}
	body := t.Output
	if t.Error != "" {
		body = t.Error
	}
	return Notification{ID: KindTurn + ":" + threadID + "/" + t.ID, Title: title, Body: Clip(body, 200), ThreadID: threadID}
}

// ConfigError is the notification of a config file not applied, with
// the reason (ID ConfigID: a newer one replaces it).
func ConfigError(message string) Notification {
	return Notification{ID: ConfigID, Title: "Switchboard: config file not applied", Body: Clip(message, 300)}
}

// Budget is the notification of a budget_warning or budget_exceeded
// event, one per budget (the exceeded one replaces the warning: same ID);
// ok is false for a payload that names no budget.
func Budget(e hub.Event) (x Notification, ok bool) {
	var v struct {
		Budget, Currency string
		Spent, Limit     float64
		CrossedBy        struct{ ThreadID string }
	}
	if json.Unmarshal(e.Payload, &v) != nil || v.Budget == "" {
		return x, false
	}
	title := fmt.Sprintf("Switchboard: %s budget at %.0f %%", v.Budget, 100*v.Spent/max(v.Limit, 1e-9))
	body := fmt.Sprintf("%.2f of %.2f %s spent.", v.Spent, v.Limit, v.Currency)
	if e.Type == hub.EventBudgetExceeded {
		title = "Switchboard: " + v.Budget + " budget spent"
		body += " The turn that crossed it was cancelled; new turns are refused until the budget is raised in Settings or one more turn is allowed."
	}
	return Notification{ID: KindBudget + ":" + v.Budget, Title: Clip(title, 120), Body: Clip(body, 300), ThreadID: v.CrossedBy.ThreadID}, true
}
