package app

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-hub/switchboard/hub"
)

// budget notifies of a budget_warning or budget_exceeded event, one
// notification per budget (the exceeded one replaces the warning), unless
// notifications.budget is off. A budget is hub-wide: the window's thread
// does not hold it back.
func (n *notifier) budget(e hub.Event) {
	if c := n.config().Notifications; !c.Enabled || !c.Budget {
		return
	}
	var v struct {
		Budget, Currency string
		Spent, Limit     float64
		CrossedBy        struct{ ThreadID string }
	}
	if json.Unmarshal(e.Payload, &v) != nil || v.Budget == "" {
		return
	}
	title := fmt.Sprintf("Switchboard: %s budget at %.0f %%", v.Budget, 100*v.Spent/max(v.Limit, 1e-9))
	body := fmt.Sprintf("%.2f of %.2f %s spent.", v.Spent, v.Limit, v.Currency)
	if e.Type == hub.EventBudgetExceeded {
		title = "Switchboard: " + v.Budget + " budget spent"
		body += " The turn that crossed it was cancelled; new turns are refused until the budget is raised in Settings or one more turn is allowed."
	}
	n.deliver(notification{ID: "budget:" + v.Budget, Title: clip(title, 120), Body: clip(body, 300), ThreadID: v.CrossedBy.ThreadID})
}
