package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

// The pause that asks (issue 33): a running turn that crosses a limit in
// money, tokens or minutes is not cancelled at once. The hub raises a
// permission of kind budget (askBudget) and holds the agent's next
// session/request_permission, fs/* and terminal/create request until a
// person answers it (holdForBudget): "allow-more" raises the limit for
// this turn by budgets.allowMore, "stop" or no answer cancels the turn.
// An agent that asks nothing meanwhile is cancelled at the limit plus
// budgets.grace (judge): its overrun never exceeds the grace, as far as
// its reports go (a cost or token figure is known only when reported).
//
// What a budget spent is known without reading the store for tokens and
// minutes: for minutes, what it had spent when the turn started
// (spendLimit.before) plus the turn's own time; for tokens, that plus
// what every running turn it covers reported since (its tally), so that
// two threads sharing a daily, monthly or agent budget see each other's
// tokens as they are reported, not from their next turn. A usage_update
// costs a few additions (BenchmarkBudgetCheck). Money is read from the
// ledger after each costly report (checkSpending), as before.

// spendLimit is one tokens or minutes budget covering a turn, with what
// it had spent before the turn started; for tokens, the budget's tally
// and its count when before was read (the budget's figure is then
// before + tally − base).
type spendLimit struct {
	scope  budgetScope
	before float64
	tally  *tokenTally
	base   int64
}

// spent is a tokens budget's figure now: before, plus what the turns it
// covers reported since (its tally).
func (l spendLimit) spent() float64 { return l.before + float64(l.tally.n.Load()-l.base) }

// tokenTally counts the tokens the running turns covered by one tokens
// budget (in one period) reported, in memory: shared by those turns
// (budgetState.tallies), so each sees the others' reports at once.
// refs counts the turns holding it (budgetState.tmu).
type tokenTally struct {
	n    atomic.Int64
	refs int
}

// tally is the tally of the tokens budget s, held by one more turn; its
// count is read as the base before the budget's ledger figure is, so a
// report committed between the two is counted twice rather than not at
// all (a few milliseconds' reports, on the safe side).
func (b *budgetState) tally(s budgetScope) (*tokenTally, int64) {
	key := s.name + "|" + s.period
	b.tmu.Lock()
	defer b.tmu.Unlock()
	if b.tallies == nil {
		b.tallies = map[string]*tokenTally{}
	}
	t := b.tallies[key]
	if t == nil {
		t = new(tokenTally)
		b.tallies[key] = t
	}
	t.refs++
	return t, t.n.Load()
}

// release lets go of the tallies of lims, held by a turn that ended; a
// tally no turn holds is forgotten (its tokens are in the ledger).
func (b *budgetState) release(lims []spendLimit) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	for _, l := range lims {
		if l.tally == nil {
			continue
		}
		if l.tally.refs--; l.tally.refs == 0 {
			delete(b.tallies, l.scope.name+"|"+l.scope.period)
		}
	}
}

// turnSpend is what a running turn spent and how its budgets hold it.
// mu is a leaf lock.
type turnSpend struct {
	mu sync.Mutex
	// tokens and minutes are the turn's limits in those measures (set
	// once, before it runs).
	tokens, minutes []spendLimit
	// live is the turn's tokens so far: the growth of the context
	// window its agent reports (usage_update used), then what its
	// prompt response added (recordPromptUsage).
	live int64
	// started is when the turn started; waited is the time a person
	// was asked (a permission, a question, the budget hold), over;
	// waiting counts the asks under way since waitSince.
	started   time.Time
	waited    time.Duration
	waiting   int
	waitSince time.Time
	// extra is what "allow more" added to each budget (by name) for
	// this turn.
	extra map[string]float64
	// asking is the budget the pending budget question is about ("":
	// none); hold is closed when it is answered (nil: none).
	asking string
	hold   chan struct{}
	// changed wakes the minutes watcher (an ask began or ended, a limit
	// was raised).
	changed chan struct{}
	// costed: the turn's agent reported a cost (its tokens then get no
	// estimate).
	costed atomic.Bool
}

// newTurnSpend starts the spend of a turn started at now.
func newTurnSpend(now time.Time) *turnSpend {
	return &turnSpend{started: now, changed: make(chan struct{}, 1)}
}

// wake tells the minutes watcher to look again.
func (sp *turnSpend) wake() {
	select {
	case sp.changed <- struct{}{}:
	default:
	}
}

// waitBegin and waitEnd bracket a time the agent waits on a person: it
// is not agent time (budgets.minutes). A nil sp (a call outside a turn)
// keeps nothing.
func (sp *turnSpend) waitBegin(now time.Time) {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	if sp.waiting == 0 {
		sp.waitSince = now
	}
	sp.waiting++
	sp.mu.Unlock()
	sp.wake()
}

func (sp *turnSpend) waitEnd(now time.Time) {
	if sp == nil {
		return
	}
	sp.mu.Lock()
	sp.waiting--
	if sp.waiting == 0 {
		sp.waited += now.Sub(sp.waitSince)
	}
	sp.mu.Unlock()
	sp.wake()
}

// activeLocked is the turn's agent time at now. sp.mu is held.
func (sp *turnSpend) activeLocked(now time.Time) time.Duration {
	d := now.Sub(sp.started) - sp.waited
	if sp.waiting > 0 {
		d -= now.Sub(sp.waitSince)
	}
	return max(d, 0)
}

// active is the turn's agent time at now.
func (sp *turnSpend) active(now time.Time) time.Duration {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.activeLocked(now)
}

// noteTokens adds the growth of the context window from prev to used to
// tr's tokens and its budgets' tallies, judges its tokens budgets (what
// other turns reported included), and returns the growth (0 when the
// window did not grow): the check each usage_update costs (in memory;
// BenchmarkBudgetCheck).
func (e *Engine) noteTokens(tr *turnRT, prev, used int64) int64 {
	sp := tr.spend
	if sp == nil || used <= prev {
		return 0
	}
	grown := used - prev
	for _, l := range sp.addTokens(grown) {
		e.judge(tr, l.scope, l.spent())
	}
	return grown
}

// addTokens adds n tokens to the turn's and to its budgets' tallies, and
// returns its tokens budgets.
func (sp *turnSpend) addTokens(n int64) []spendLimit {
	sp.mu.Lock()
	sp.live += n
	lims := sp.tokens
	sp.mu.Unlock()
	for _, l := range lims {
		l.tally.n.Add(n)
	}
	return lims
}

// grown is the turn's tokens so far (live).
func (sp *turnSpend) grown() int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.live
}

// judgeMinutes judges tr's minutes budgets at now, and returns how much
// agent time is left until the next threshold (a limit to ask at, or the
// grace to cancel at); a negative or zero duration means none left to
// watch.
func (e *Engine) judgeMinutes(tr *turnRT, now time.Time) time.Duration {
	sp := tr.spend
	sp.mu.Lock()
	active, lims := sp.activeLocked(now), sp.minutes
	sp.mu.Unlock()
	next := time.Duration(-1)
	grace := e.config().Budgets.GraceShare()
	minutes := func(m float64) time.Duration { return time.Duration(math.Round(m * float64(time.Minute))) }
	for _, l := range lims {
		spentD := minutes(l.before) + active // in durations: no rounding noise
		spent := spentD.Minutes()
		e.judge(tr, l.scope, spent)
		sp.mu.Lock()
		over := l.scope.limit + sp.extra[l.scope.name]
		asked := sp.asking == l.scope.name
		sp.mu.Unlock()
		at := over
		if spent >= over || asked {
			at = over + grace*l.scope.limit
		}
		if left := minutes(at) - spentD; left > 0 && (next < 0 || left < next) {
			next = left
		}
	}
	return next
}

// watchMinutes judges tr's minutes budgets as its agent time passes (on
// the engine's clock), until the turn ends. Time a person is asked does
// not pass.
func (e *Engine) watchMinutes(tr *turnRT) {
	sp := tr.spend
	for {
		next := e.judgeMinutes(tr, e.now())
		sp.mu.Lock()
		waiting := sp.waiting > 0
		sp.mu.Unlock()
		var due <-chan struct{}
		stop := func() bool { return false }
		if next > 0 && !waiting {
			due, stop = e.after(next)
		}
		select {
		case <-due:
		case <-sp.changed:
		case <-tr.done:
			stop()
			return
		}
		stop()
	}
}

// judge decides what tr does having spent spent of the budget s (the
// budgets' figure: before the turn plus the turn's): nothing below its
// limit (raised by what "allow more" added); the budget question at it;
// a cancel at the limit plus the grace. A turn an override let past s,
// and an internal turn, are never held by it.
func (e *Engine) judge(tr *turnRT, s budgetScope, spent float64) {
	if tr.turn.Internal || tr.passed[s.name] || s.limit <= 0 {
		return
	}
	sp := tr.spend
	sp.mu.Lock()
	over := s.limit + sp.extra[s.name]
	sp.mu.Unlock()
	if !reached(spent, over) {
		return // the path of nearly every report: a lock and a comparison
	}
	b := e.config().Budgets
	measure, _ := hub.Measure(s.name)
	if grace := b.GraceShare() * s.limit; reached(spent, over+grace) {
		e.cancelTurn(tr, fmt.Sprintf("the %s budget is spent past its grace: %s of %s", s.name,
			hub.FormatSpend(measure, spent, b.Currency), hub.FormatSpend(measure, over, b.Currency)))
		return
	}
	if tr.cancelled() {
		return
	}
	sp.mu.Lock()
	if sp.asking != "" { // one question at a time; "allow more" only while one is asked
		sp.mu.Unlock()
		return
	}
	sp.asking, sp.hold = s.name, make(chan struct{})
	sp.mu.Unlock()
	go e.askBudget(tr, s, spent, over)
}

// reached reports whether spent reached limit, within the rounding of
// sums of decimal amounts (0.3 + 0.2 + 0.05 + 0.55 is a hair under 1.1).
func reached(spent, limit float64) bool { return spent >= limit-1e-9*max(1, limit) }

// askBudget raises the budget permission about s for tr (spent of its
// limit over) and acts on the answer: "allow-more" adds
// budgets.allowMore of the limit for this turn; anything else (stop, the
// timeout, the turn's end) cancels the turn. The hold is released after
// either, so a held request sees the turn cancelled.
func (e *Engine) askBudget(tr *turnRT, s budgetScope, spent, over float64) {
	sp := tr.spend
	b := e.config().Budgets
	measure, _ := hub.Measure(s.name)
	more := b.AllowMoreShare() * s.limit
	d := &hub.BudgetDetails{Budget: s.name, Measure: measure, Spent: spent, Limit: over, AllowMore: more,
		Grace: b.GraceShare() * s.limit, Currency: b.Currency}
	title := budgetTitle(tr.thread, d)
	c := &threadClient{e: e, rt: tr.rt, thread: tr.thread}
	tc := map[string]any{
		"toolCallId": fmt.Sprintf("hub_budget_%d", e.hubCalls.Add(1)),
		"kind":       "other",
		"title":      title,
	}
	opts := []acp.PermissionOption{
		{OptionID: hub.BudgetOptionAllowMore, Name: "Allow " + hub.FormatSpend(measure, more, b.Currency) + " more for this turn", Kind: acp.AllowOnce},
		{OptionID: hub.BudgetOptionStop, Name: "Stop now", Kind: acp.RejectOnce},
	}
	raw, _ := json.Marshal(tc)
	tr.rt.mu.Lock()
	sid := tr.rt.sessionID
	tr.rt.mu.Unlock()
	resp, err := c.requestPermission(context.Background(), acp.RequestPermissionRequest{SessionID: sid, ToolCall: raw, Options: opts},
		hub.PermKindBudget, &hub.PermissionRequest{Kind: "other", Title: title, Budget: d}, nil)
	allowed := err == nil && resp.Outcome.Outcome == "selected" && resp.Outcome.OptionID == hub.BudgetOptionAllowMore
	if allowed {
		sp.mu.Lock()
		if sp.extra == nil {
			sp.extra = map[string]float64{}
		}
		sp.extra[s.name] += more
		sp.mu.Unlock()
		e.log.Info("hub: a running turn allowed more of a budget", "turn", tr.turn.ID, "budget", s.name, "more", more)
	} else {
		e.cancelTurn(tr, fmt.Sprintf("stopped at the %s budget: %s of %s", s.name,
			hub.FormatSpend(measure, spent, b.Currency), hub.FormatSpend(measure, s.limit, b.Currency)))
	}
	sp.mu.Lock()
	close(sp.hold)
	sp.asking, sp.hold = "", nil
	sp.mu.Unlock()
	sp.wake()
}

// budgetTitle is the budget question's title, in words: `"Fix the
// parser" reached its daily limit of 5.00 USD (5.02 USD spent): allow
// 1.00 USD more for this turn, or stop now`.
func budgetTitle(t hub.Thread, d *hub.BudgetDetails) string {
	name := t.Title
	if name == "" {
		name = t.ID
	}
	return fmt.Sprintf("%q reached %s limit of %s (%s spent): allow %s more for this turn, or stop now",
		name, limitWords(d.Budget), hub.FormatSpend(d.Measure, d.Limit, d.Currency),
		hub.FormatSpend(d.Measure, d.Spent, d.Currency), hub.FormatSpend(d.Measure, d.AllowMore, d.Currency))
}

// limitWords names a budget for people: "its daily", "its per-thread",
// "claude's monthly".
func limitWords(budget string) string {
	_, rest := hub.Measure(budget)
	whose := "its"
	if r, ok := strings.CutPrefix(rest, "agents."); ok {
		i := strings.LastIndexByte(r, '.')
		whose, rest = r[:i]+"'s", r[i+1:]
	}
	if rest == hub.BudgetPerThread {
		rest = "per-thread"
	}
	return whose + " " + rest
}

// holdForBudget holds an agent's request while its turn's budget
// question is pending (the time counts as waiting on a person), and
// refuses it once the turn was stopped. nil lets the request go on.
func (c *threadClient) holdForBudget(ctx context.Context, method string) error {
	c.rt.mu.Lock()
	tr := c.rt.turn
	c.rt.mu.Unlock()
	if tr == nil || tr.spend == nil {
		return nil
	}
	sp := tr.spend
	sp.mu.Lock()
	hold := sp.hold
	sp.mu.Unlock()
	if hold != nil {
		sp.waitBegin(c.e.now())
		select {
		case <-hold:
		case <-ctx.Done():
		}
		sp.waitEnd(c.e.now())
	}
	if hold != nil && tr.cancelled() {
		return acp.NewError(acp.CodeInternalError, "switchboard: %s refused: the turn was stopped at its budget", method)
	}
	return ctx.Err()
}

// estimate is the cost of a prompt's tokens of tr at budgets.prices of
// model (in the budgets' currency) when tr reported no cost and the model
// has a price; 0 otherwise.
func (e *Engine) estimate(tr *turnRT, model string, input, output int64) float64 {
	p, ok := e.config().Budgets.Prices[model]
	if !ok || tr.spend == nil || tr.spend.costed.Load() {
		return 0
	}
	return p.Estimate(input, output)
}

// spendRecord is the ledger record of tr's agent time, written when it
// ends (budgets.minutes counts it).
//
// It also lets go of the turn's tokens tallies: the turn has ended, and
// its tokens are in the ledger's records.
func (e *Engine) spendRecord(tr *turnRT, now time.Time) *hub.UsageRecord {
	if tr.spend == nil {
		return nil
	}
	tr.spend.mu.Lock()
	lims := tr.spend.tokens
	tr.spend.tokens = nil
	tr.spend.mu.Unlock()
	e.budgets.release(lims)
	secs := tr.spend.active(now).Seconds()
	if secs <= 0 || math.IsNaN(secs) {
		return nil
	}
	c := threadClient{e: e, thread: tr.thread}
	tr.rt.mu.Lock()
	sid, model := tr.rt.sessionID, currentModel(tr.rt.config)
	tr.rt.mu.Unlock()
	r := c.record(tr, sid, model, hub.UsageTurn)
	r.At, r.Seconds = now, secs
	return &r
}
