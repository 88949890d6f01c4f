package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// budgetState is what the engine keeps of the budgets (Config.Budgets):
// which warnings and exceedings it announced, per budget and period.
type budgetState struct {
	// mu serialises admitting a turn past the budgets (reading what was
	// spent and using an override), so one override lets one turn through.
	mu sync.Mutex

	nmu       sync.Mutex
	announced map[string]bool // "<event>|<budget>|<period>"

	// tallies are the tokens budgets' running tallies, by
	// "<budget>|<period>" (spend.go); tmu is a leaf lock.
	tmu     sync.Mutex
	tallies map[string]*tokenTally
}

// budgetScope is one budget as it applies now: its limit and the ledger
// records it counts.
type budgetScope struct {
	name     string
	limit    float64
	period   string // the period's key: the day, the month, the thread
	threadID string // perThread: the thread (overrides are per thread)
	filter   hub.UsageFilter
}

// scope returns the budget name ("daily", "tokens.perThread",
// "minutes.agents.<id>.monthly" …) as it applies at now to threadID (for
// perThread); ok is false for a name that is no budget.
func scope(b hub.Budgets, name, threadID string, now time.Time) (budgetScope, bool) {
	limit, ok := b.Limit(name)
	if !ok {
		return budgetScope{}, false
	}
	measure, period := hub.Measure(name)
	s := budgetScope{name: name, limit: limit, filter: hub.UsageFilter{All: true, Measure: measure}}
	if measure == hub.MeasureMoney {
		s.filter.Currency = b.Currency
	}
	if rest, ok := strings.CutPrefix(period, "agents."); ok {
		i := strings.LastIndexByte(rest, '.')
		s.filter.Agent, period = rest[:i], rest[i+1:]
	}
	local := now.In(time.Local)
	y, m, d := local.Date()
	switch period {
	case hub.BudgetDaily:
		s.filter.From = time.Date(y, m, d, 0, 0, 0, 0, time.Local)
		s.filter.To = s.filter.From.AddDate(0, 0, 1)
		s.period = s.filter.From.Format(time.DateOnly)
	case hub.BudgetMonthly:
		s.filter.From = time.Date(y, m, 1, 0, 0, 0, 0, time.Local)
		s.filter.To = s.filter.From.AddDate(0, 1, 0)
		s.period = s.filter.From.Format("2006-01")
	case hub.BudgetPerThread:
		s.filter.ThreadID, s.threadID, s.period = threadID, threadID, threadID
	}
	return s, true
}

// scopesFor lists the budgets in measure with a limit that cover a turn
// of agent on threadID (money only with a currency).
func scopesFor(b hub.Budgets, measure, threadID, agent string, now time.Time) []budgetScope {
	if measure == hub.MeasureMoney && b.Currency == "" {
		return nil
	}
	prefix := ""
	if measure != hub.MeasureMoney {
		prefix = measure + "."
	}
	names := []string{hub.BudgetDaily, hub.BudgetMonthly, hub.BudgetPerThread}
	if b.HasAgentLimits(measure, agent) {
		names = append(names, "agents."+agent+"."+hub.BudgetDaily, "agents."+agent+"."+hub.BudgetMonthly)
	}
	var out []budgetScope
	for _, n := range names {
		if s, ok := scope(b, prefix+n, threadID, now); ok && s.limit > 0 {
			out = append(out, s)
		}
	}
	return out
}

// exceededError is the CONFLICT that refuses a turn of an exceeded budget.
func exceededError(s budgetScope, currency string, spent float64) error {
	measure, _ := hub.Measure(s.name)
	body := `{"budget":"` + s.name + `"`
	if s.threadID != "" {
		body += `,"threadId":"` + s.threadID + `"`
	}
	body += "}"
	key := "budgets." + s.name
	return &hub.Error{Code: hub.CodeConflict,
		Message: fmt.Sprintf("the %s budget is spent: %s of %s. Raise %s in Settings or the config file, or allow one more turn with POST /v1/budgets/override %s",
			s.name, hub.FormatSpend(measure, spent, currency), hub.FormatSpend(measure, s.limit, currency), key, body),
		Details: map[string]any{"reason": hub.ReasonBudgetExceeded, "budget": s.name, "currency": currency, "spent": spent, "limit": s.limit}}
}

// admitTurn checks the budgets that cover a new turn of t: for each one
// spent it uses an unused override (marked used by turnID), else refuses
// the turn with exceededError. It returns the budgets the turn was let
// past: its own cost never cancels it for those.
func (e *Engine) admitTurn(ctx context.Context, t hub.Thread, turnID string) (map[string]bool, error) {
	b := e.config().Budgets
	us := e.ledger
	now := e.now()
	var scopes []budgetScope
	if free, err := e.reportsNoCost(ctx, t.Agent); err != nil {
		return nil, err
	} else if !free { // an agent that reports no cost is held by its tokens and time
		scopes = scopesFor(b, hub.MeasureMoney, t.ID, t.Agent, now)
	}
	scopes = append(scopes, scopesFor(b, hub.MeasureTokens, t.ID, t.Agent, now)...)
	scopes = append(scopes, scopesFor(b, hub.MeasureMinutes, t.ID, t.Agent, now)...)
	if us == nil || len(scopes) == 0 {
		return nil, nil
	}
	e.budgets.mu.Lock()
	defer e.budgets.mu.Unlock()
	var use []hub.BudgetOverride
	passed := map[string]bool{}
	for _, s := range scopes {
		spent, err := us.UsageSpent(ctx, s.filter)
		if err != nil {
			return nil, err
		}
		if spent < s.limit {
			continue
		}
		// An override is for the period it was given in: one left unused
		// yesterday does not let a turn past today's spent budget.
		id, err := us.UnusedOverride(ctx, s.name, s.threadID, s.filter.From)
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, exceededError(s, b.Currency, spent)
		}
		use = append(use, hub.BudgetOverride{ID: id, Budget: s.name, ThreadID: s.threadID, UsedBy: turnID, DecidedBy: "-", At: e.now()})
		passed[s.name] = true
	}
	if len(use) > 0 {
		if err := e.commit(&hub.Write{Overrides: use}); err != nil {
			return nil, err
		}
		e.log.Info("hub: a turn let past a spent budget by an override", "turn", turnID, "budgets", len(use))
	}
	return passed, nil
}

// spendLimits are the tokens and minutes budgets covering a turn of t,
// each with what it had spent before (read from the ledger) and, for
// tokens, its tally (held until the turn ends: spendRecord).
func (e *Engine) spendLimits(ctx context.Context, t hub.Thread, now time.Time) (tokens, minutes []spendLimit, err error) {
	us := e.ledger
	if us == nil {
		return nil, nil, nil
	}
	b := e.config().Budgets
	for _, m := range []struct {
		measure string
		dst     *[]spendLimit
	}{{hub.MeasureTokens, &tokens}, {hub.MeasureMinutes, &minutes}} {
		for _, s := range scopesFor(b, m.measure, t.ID, t.Agent, now) {
			l := spendLimit{scope: s}
			if m.measure == hub.MeasureTokens {
				l.tally, l.base = e.budgets.tally(s) // spend.go: before the ledger is read
			}
			before, err := us.UsageSpent(ctx, s.filter)
			if err != nil {
				e.budgets.release(append(tokens, l))
				return nil, nil, err
			}
			l.before = before
			*m.dst = append(*m.dst, l)
		}
	}
	return tokens, minutes, nil
}

// reportsNoCost reports whether agent reported usage to the ledger but
// never a cost: such an agent is never stopped by a budget (its spending
// cannot be known). An agent that never reported is not one.
func (e *Engine) reportsNoCost(ctx context.Context, agent string) (bool, error) {
	rows, err := e.ledger.UsageRows(ctx, hub.UsageFilter{All: true, Agent: agent}, hub.UsageByAgent)
	if err != nil {
		return false, err
	}
	reported := false
	for _, r := range rows {
		if r.HasCost {
			return false, nil
		}
		reported = reported || r.Reported
	}
	return reported, nil
}

// checkSpending runs after a ledger record r that cost something was
// committed: for each budget in money covering it, it announces
// budget_warning at 80 % of the limit and budget_exceeded at 100 % (once
// per budget and period), and judges tr (the turn that reported r; the
// pause that asks, spend.go).
func (e *Engine) checkSpending(r hub.UsageRecord, tr *turnRT) {
	b := e.config().Budgets
	us := e.ledger
	if us == nil || r.Currency != b.Currency {
		return // other currencies are not counted
	}
	ctx := context.Background()
	for _, s := range scopesFor(b, hub.MeasureMoney, r.ThreadID, r.Agent, r.At) {
		spent, err := us.UsageSpent(ctx, s.filter)
		if err != nil {
			e.log.Warn("hub: reading a budget's spending failed", "budget", s.name, "err", err)
			continue
		}
		// Hub-wide events: the envelope's threadId and turnId stay "", so
		// the payload names threads under keys of its own.
		payload := map[string]any{"budget": s.name, "currency": b.Currency, "spent": spent, "limit": s.limit}
		if s.threadID != "" {
			payload["thread"] = s.threadID
		}
		if spent >= 0.8*s.limit && e.firstAnnounce(hub.EventBudgetWarning, s) {
			e.announceBudget(hub.EventBudgetWarning, payload)
		}
		if spent < s.limit {
			continue
		}
		if tr != nil && tr.spend != nil {
			e.judge(tr, s, spent)
		}
		if e.firstAnnounce(hub.EventBudgetExceeded, s) {
			if tr != nil {
				payload["crossedBy"] = map[string]string{"threadId": tr.turn.ThreadID, "turnId": tr.turn.ID}
			}
			e.announceBudget(hub.EventBudgetExceeded, payload)
		}
	}
}

// firstAnnounce reports whether typ was not yet announced for s in its
// period, and records that it now is.
func (e *Engine) firstAnnounce(typ string, s budgetScope) bool {
	key := typ + "|" + s.name + "|" + s.period
	e.budgets.nmu.Lock()
	defer e.budgets.nmu.Unlock()
	if e.budgets.announced[key] {
		return false
	}
	if e.budgets.announced == nil {
		e.budgets.announced = map[string]bool{}
	}
	e.budgets.announced[key] = true
	return true
}

func (e *Engine) announceBudget(typ string, payload map[string]any) {
	if err := e.Announce(typ, payload); err != nil {
		e.log.Warn("hub: announcing a budget failed", "event", typ, "err", err)
	}
}

// OverrideBudget implements hub.UsageService.
func (e *Engine) OverrideBudget(ctx context.Context, c hub.Caller, req hub.OverrideRequest) (hub.BudgetOverride, error) {
	b := e.config().Budgets
	if _, rest := hub.Measure(req.Budget); rest == hub.BudgetPerThread {
		if req.ThreadID == "" {
			return hub.BudgetOverride{}, hub.Errorf(hub.CodeInvalidArgument, "a perThread override names its threadId")
		}
		if _, err := e.visibleThread(ctx, c, req.ThreadID); err != nil {
			return hub.BudgetOverride{}, err
		}
	} else if req.ThreadID != "" {
		return hub.BudgetOverride{}, hub.Errorf(hub.CodeInvalidArgument, "threadId is only for the perThread budget")
	}
	s, ok := scope(b, req.Budget, req.ThreadID, e.now())
	if !ok {
		return hub.BudgetOverride{}, hub.Errorf(hub.CodeInvalidArgument, "budget must be daily, monthly, perThread, agents.<id>.daily or agents.<id>.monthly, alone or after tokens. or minutes., not %q", req.Budget)
	}
	us := e.ledger
	if us == nil {
		return hub.BudgetOverride{}, hub.Errorf(hub.CodeInternal, "this hub keeps no usage ledger")
	}
	spent := 0.0
	if s.limit > 0 && (b.Currency != "" || s.filter.Measure != hub.MeasureMoney) {
		var err error
		if spent, err = us.UsageSpent(ctx, s.filter); err != nil {
			return hub.BudgetOverride{}, err
		}
	}
	if s.limit <= 0 || spent < s.limit {
		return hub.BudgetOverride{}, &hub.Error{Code: hub.CodeConflict,
			Message: fmt.Sprintf("the %s budget is not spent: nothing to override", req.Budget),
			Details: map[string]any{"reason": hub.ReasonBudgetNotExceeded, "budget": req.Budget, "currency": b.Currency, "spent": spent, "limit": s.limit}}
	}
	o := hub.BudgetOverride{ID: newID("bo"), Budget: req.Budget, ThreadID: req.ThreadID, DecidedBy: hub.DecidedByOf(c), At: e.now()}
	if err := e.commit(&hub.Write{Overrides: []hub.BudgetOverride{o}}); err != nil {
		return hub.BudgetOverride{}, err
	}
	e.log.Info("hub: budget override", "budget", o.Budget, "thread", o.ThreadID, "decidedBy", o.DecidedBy)
	return o, nil
}
