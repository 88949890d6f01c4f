package hub

import (
	"context"
	"math"
	"regexp"
	"sort"
	"time"
)

// Usage events, hub-wide (no thread), delivered like config_error.
const (
	// EventBudgetWarning: {budget, currency, spent, limit, thread?} when a
	// budget's spending first reaches 80 % of its limit in its period
	// (thread: the perThread budget's thread).
	EventBudgetWarning = "budget_warning"
	// EventBudgetExceeded: {budget, currency, spent, limit, thread?,
	// crossedBy?: {threadId, turnId}} when a turn's cost makes a budget
	// reach its limit; that turn is cancelled. (Hub-wide: the envelope's
	// threadId and turnId are "", so the payload never uses those keys.)
	EventBudgetExceeded = "budget_exceeded"
)

// ReasonBudgetExceeded is details.reason of the CONFLICT that refuses a
// turn a budget covers once it is spent.
const ReasonBudgetExceeded = "BUDGET_EXCEEDED"

// The ledger's bounds on what an agent reports (issue 28): a report is
// untrusted input, and one absurd number must not make a sum overflow to
// +Inf (which no JSON can carry, so every budget check and /v1/usage
// would fail). A cost amount above MaxUsageAmount counts as
// MaxUsageAmount; a negative, NaN or infinite amount is no cost at all;
// token counts are clamped to [0, MaxUsageTokens]. Sums saturate at
// MaxUsageSum (SaturatingAdd), far below where float64 loses finiteness.
const (
	MaxUsageAmount = 1e6   // one report's cumulative cost, in its currency
	MaxUsageTokens = 1e9   // one report's tokens (each of used, size, input, output)
	MaxUsageSum    = 1e300 // any sum of costs the hub computes
)

// ClampAmount is a reported cumulative cost as the ledger keeps it:
// amount capped at MaxUsageAmount; ok is false for a negative, NaN or
// infinite amount (the report then carries no cost).
func ClampAmount(amount float64) (clamped float64, ok bool) {
	if math.IsNaN(amount) || math.IsInf(amount, 0) || amount < 0 {
		return 0, false
	}
	return min(amount, MaxUsageAmount), true
}

// ClampTokens is a reported token count within [0, MaxUsageTokens].
func ClampTokens(n int64) int64 {
	return min(max(n, 0), MaxUsageTokens)
}

// SaturatingAdd is a+b for costs: never NaN nor infinite, capped at
// MaxUsageSum (a non-finite operand counts as MaxUsageSum, a NaN as 0).
func SaturatingAdd(a, b float64) float64 {
	return FiniteCost(FiniteCost(a) + FiniteCost(b))
}

// FiniteCost is x within [-MaxUsageSum, MaxUsageSum]: +Inf saturates,
// NaN is 0.
func FiniteCost(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(max(x, -MaxUsageSum), MaxUsageSum)
}

// Kinds of UsageRecord.
const (
	UsageUpdate = "update" // an ACP usage_update: used/size, cumulative cost
	UsagePrompt = "prompt" // the usage of a session/prompt response: tokens
	UsageTurn   = "turn"   // a turn's agent time (Seconds), when it ends
)

// MaxUsageSeconds bounds one record's agent time (a day; a turn's
// timeout is far shorter).
const MaxUsageSeconds = 86400

// UsageRecord is one usage report of an agent as the ledger keeps it: ids,
// numbers and the model, never text, so it outlives its thread's deletion.
type UsageRecord struct {
	At        time.Time
	ThreadID  string
	TurnID    string
	ClientID  string
	Agent     string
	SessionID string // the agent session the report is about
	Model     string // "" when not known
	Kind      string // UsageUpdate or UsagePrompt
	// Used and Size are the context window's tokens (UsageUpdate; 0 when
	// not reported).
	Used, Size int64
	// Amount is the session's cumulative cost as reported, in Currency;
	// nil when the report has no cost.
	Amount   *float64
	Currency string
	// InputTokens and OutputTokens are a prompt's tokens (UsagePrompt),
	// CachedTokens its cached (read and written) tokens, counted apart:
	// budgets.tokens counts input + output.
	InputTokens, OutputTokens, CachedTokens int64
	// Seconds is a turn's agent time (UsageTurn): its running wall time
	// less the time a person was asked.
	Seconds float64
	// Estimate is a prompt's tokens at budgets.prices of its model, in
	// the budgets' currency, when its turn reported no cost (UsagePrompt;
	// 0 otherwise): shown as an estimate, never counted as spent.
	Estimate float64
	// Cost is set by the store when the record is committed: what this
	// report adds to the ledger, the increase of Amount over the last
	// amount of the same thread, agent session and currency, or Amount
	// itself when there is none or it was higher (a new baseline).
	Cost float64
}

// UsageQuery selects and groups the ledger (GET /v1/usage).
type UsageQuery struct {
	// By is the grouping: "day" (in Loc), "agent", "thread", "model" or
	// "turn".
	By string
	// From and To bound the reports' time, [From, To).
	From, To time.Time
	// Loc is the time zone of days (default time.Local).
	Loc *time.Location
	// ThreadID, when set, selects one thread's reports.
	ThreadID string
	// Limit bounds the buckets of the answer (0: up to MaxUsageBuckets),
	// after Cursor (a previous answer's NextCursor; "" from the first).
	Limit  int
	Cursor string
}

// MaxUsageBuckets is the most buckets one usage answer holds: without a
// limit an answer stops there, with nextCursor set.
const MaxUsageBuckets = 10000

// UsageParams are GET /v1/usage's parameters as given (the window's
// GetUsage takes the same), for ParseUsageQuery.
type UsageParams struct {
	By       string `json:"by,omitempty"`
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	TZ       string `json:"tz,omitempty"`
	ThreadID string `json:"threadId,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	Cursor   string `json:"cursor,omitempty"`
}

// Usage groupings (UsageQuery.By).
const (
	UsageByDay    = "day"
	UsageByAgent  = "agent"
	UsageByThread = "thread"
	UsageByModel  = "model"
	UsageByTurn   = "turn"
)

// UsageBucket is one group of the ledger: cost per currency and tokens.
type UsageBucket struct {
	Key          string             `json:"key"`
	Cost         map[string]float64 `json:"cost"`
	InputTokens  int64              `json:"inputTokens"`
	OutputTokens int64              `json:"outputTokens"`
	// CachedTokens are cached tokens (not in input or output); Minutes
	// is agent time (running turns less the time a person was asked).
	CachedTokens int64   `json:"cachedTokens,omitempty"`
	Minutes      float64 `json:"minutes,omitempty"`
	// Estimate is the cost of tokens reported without a cost at
	// budgets.prices, in the report's Currency: an estimate, never spent.
	Estimate float64 `json:"estimate,omitempty"`
	// Agents splits Cost by agent (by=day, for a stacked plot), and
	// AgentTokens splits input + output tokens the same way.
	Agents      map[string]map[string]float64 `json:"agents,omitempty"`
	AgentTokens map[string]int64              `json:"agentTokens,omitempty"`
	// Agent, Title and ThreadID describe a thread or turn bucket (Title
	// only while the thread exists).
	Agent    string `json:"agent,omitempty"`
	Title    string `json:"title,omitempty"`
	ThreadID string `json:"threadId,omitempty"`
	// Used and Size are the last context window report of a thread or
	// turn bucket.
	Used int64 `json:"used,omitempty"`
	Size int64 `json:"size,omitempty"`
}

// UsageReport is the answer of GET /v1/usage.
type UsageReport struct {
	Buckets []UsageBucket `json:"buckets"`
	From    time.Time     `json:"from"`
	To      time.Time     `json:"to"`
	// Currency is the budgets' currency: costs in any other are shown but
	// not counted against a budget.
	Currency string `json:"currency,omitempty"`
	// AgentsWithoutCost are agents that reported usage in the period but
	// never a cost: no budget can stop them.
	AgentsWithoutCost []string `json:"agentsWithoutCost"`
	// HeldBy names, per agent that reported usage in the period, the
	// figure its budgets can hold it by: HeldByCost (it reports a cost),
	// HeldByTokens (tokens, no cost: budgets.tokens, and money only as
	// an estimate from budgets.prices) or HeldByMinutes (neither: only
	// budgets.minutes).
	HeldBy map[string]string `json:"heldBy"`
	// NextCursor is set when buckets follow (pass it as cursor).
	NextCursor string `json:"nextCursor,omitempty"`
}

// UsageReport.HeldBy values.
const (
	HeldByCost    = "cost"
	HeldByTokens  = "tokens"
	HeldByMinutes = "minutes"
)

// UsageRow is one row of a store grouping (Store's Usage): a key (a local
// 15-minute slot's start in Unix seconds for days) and its sums.
type UsageRow struct {
	Key, Agent, Currency                    string
	Cost, Seconds, Estimate                 float64
	InputTokens, OutputTokens, CachedTokens int64
	Used, Size                              int64 // the last report's (thread and turn)
	ThreadID                                string
	HasCost                                 bool
	// Reported: the agent reported usage itself (not only the hub's
	// record of a turn's agent time).
	Reported bool
}

// UsageFilter selects ledger rows for a sum (budgets) or a grouping.
type UsageFilter struct {
	From, To time.Time
	ClientID string
	All      bool
	ThreadID string
	Agent    string
	Currency string
	// Measure is what UsageSpent sums: hub.MeasureMoney (cost in
	// Currency), MeasureTokens (input + output) or MeasureMinutes.
	Measure string
}

// UsageStore is the ledger's storage, the part of Store that keeps it.
type UsageStore interface {
	// UsageRows groups the ledger's records selected by f: by is "slot"
	// (15-minute slots, for local days), "agent", "thread", "model" or
	// "turn".
	UsageRows(ctx context.Context, f UsageFilter, by string) ([]UsageRow, error)
	// UsageSpent is the ledger's f.Measure of the records f selects:
	// cost in f.Currency, tokens (input + output) or agent minutes.
	UsageSpent(ctx context.Context, f UsageFilter) (float64, error)
	// UnusedOverride returns the id of an override of budget (for
	// threadID, "" for any) made at or after since and not used yet, ""
	// when there is none.
	UnusedOverride(ctx context.Context, budget, threadID string, since time.Time) (string, error)
	// LastUsed is the context window's tokens (used) of the last
	// usage_update the thread's agent session reported, 0 when none: a
	// session reopened after a restart grows from there (ADR 0052).
	LastUsed(ctx context.Context, threadID, sessionID string) (int64, error)
}

// BudgetOverride allows one more turn past an exceeded budget.
type BudgetOverride struct {
	ID        string    `json:"id"`
	Budget    string    `json:"budget"`
	ThreadID  string    `json:"threadId,omitempty"`
	DecidedBy string    `json:"decidedBy"`
	At        time.Time `json:"at"`
	// UsedBy is the turn that used it ("" while unused).
	UsedBy string `json:"usedBy,omitempty"`
}

// OverrideRequest is the body of POST /v1/budgets/override.
type OverrideRequest struct {
	Budget   string `json:"budget"`
	ThreadID string `json:"threadId,omitempty"`
}

// UsageService is the ledger and the budgets (GET /v1/usage, POST
// /v1/budgets/override). The engine implements it.
type UsageService interface {
	// Usage groups the ledger's records of the caller's threads (all
	// with c.All) in [q.From, q.To). INVALID_ARGUMENT for an unknown By.
	Usage(ctx context.Context, c Caller, q UsageQuery) (UsageReport, error)
	// OverrideBudget lets exactly one more turn through an exceeded
	// budget, recorded with decidedBy built from c. INVALID_ARGUMENT for
	// an unknown budget or a perThread override without a visible
	// thread; CONFLICT (details.reason BUDGET_NOT_EXCEEDED) when the
	// budget is not exceeded.
	OverrideBudget(ctx context.Context, c Caller, req OverrideRequest) (BudgetOverride, error)
}

// ReasonBudgetNotExceeded is details.reason of an override refused because
// its budget is not spent.
const ReasonBudgetNotExceeded = "BUDGET_NOT_EXCEEDED"

// Budgets are spending limits (config "budgets"); a zero limit is none.
// Days and months are in the hub's local time zone. Only costs in Currency
// count. Tokens and Minutes are the same limits in tokens and in agent
// time (spend.go); Prices turn tokens into an estimate; Grace and
// AllowMore (nil: their defaults) bound a running turn that crosses a
// limit.
type Budgets struct {
	Currency  string                 `json:"currency"`
	Daily     float64                `json:"daily,omitempty"`
	Monthly   float64                `json:"monthly,omitempty"`
	PerThread float64                `json:"perThread,omitempty"`
	Agents    map[string]AgentBudget `json:"agents,omitempty"`
	Tokens    BudgetLimits           `json:"tokens,omitzero"`
	Minutes   BudgetLimits           `json:"minutes,omitzero"`
	Prices    Prices                 `json:"prices,omitempty"`
	Grace     *float64               `json:"grace,omitempty"`
	AllowMore *float64               `json:"allowMore,omitempty"`
}

// AgentBudget limits one agent's spending.
type AgentBudget struct {
	Daily   float64 `json:"daily,omitempty"`
	Monthly float64 `json:"monthly,omitempty"`
}

// Budget names: "daily", "monthly", "perThread", "agents.<id>.daily",
// "agents.<id>.monthly".
const (
	BudgetDaily     = "daily"
	BudgetMonthly   = "monthly"
	BudgetPerThread = "perThread"
)

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// Validate checks the budgets: a three-letter currency code when any
// limit is set, limits not negative, agent ids well formed.
func (b Budgets) Validate() error {
	if b.Currency != "" && !currencyPattern.MatchString(b.Currency) {
		return FieldError("budgets.currency", "budgets.currency must be a three-letter code such as USD, not %q", b.Currency)
	}
	check := func(field string, v float64) error {
		if v < 0 || v != v {
			return FieldError(field, "%s must be a number of %s, zero or more", field, b.Currency)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"budgets.daily", b.Daily}, {"budgets.monthly", b.Monthly}, {"budgets.perThread", b.PerThread}} {
		if err := check(f.name, f.v); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(b.Agents))
	for id := range b.Agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if len(id) > 64 || !agentIDPattern.MatchString(id) {
			return FieldError("budgets.agents", "budgets.agents: %q is not an agent id", id)
		}
		a := b.Agents[id]
		if err := check("budgets.agents."+id+".daily", a.Daily); err != nil {
			return err
		}
		if err := check("budgets.agents."+id+".monthly", a.Monthly); err != nil {
			return err
		}
	}
	if b.Currency == "" && (b.Any() || len(b.Prices) > 0) {
		return FieldError("budgets.currency", "budgets.currency is required when a limit or a price is set (e.g. USD)")
	}
	return b.validateSpend()
}

// Any reports whether any limit in money is set.
func (b Budgets) Any() bool { return b.limits(MeasureMoney).any() }

// AnyLimit reports whether any limit is set, in money, tokens or minutes.
func (b Budgets) AnyLimit() bool { return b.Any() || b.Tokens.any() || b.Minutes.any() }

// Limit returns the named budget's limit (0: none) and whether the name is
// one of the budget names: "daily" … in money, "tokens.daily" … in
// tokens, "minutes.daily" … in minutes (Measure).
func (b Budgets) Limit(name string) (float64, bool) {
	m, rest := Measure(name)
	return b.limits(m).limit(rest)
}

// ParseUsageQuery reads the parameters of GET /v1/usage (and the window's
// GetUsage): by (default day), from and to (RFC 3339 times or dates
// YYYY-MM-DD in tz), tz (an IANA zone; "" the hub's), threadId, limit
// (0: up to MaxUsageBuckets) and cursor. INVALID_ARGUMENT names the bad
// parameter.
func ParseUsageQuery(p UsageParams) (UsageQuery, error) {
	loc := time.Local
	if p.TZ != "" {
		l, err := time.LoadLocation(p.TZ)
		if err != nil || len(p.TZ) > 64 {
			return UsageQuery{}, Errorf(CodeInvalidArgument, "tz must be an IANA time zone such as Europe/Paris")
		}
		loc = l
	}
	if p.Limit < 0 || p.Limit > MaxUsageBuckets {
		return UsageQuery{}, Errorf(CodeInvalidArgument, "limit must be from 1 to %d", MaxUsageBuckets)
	}
	q := UsageQuery{By: p.By, Loc: loc, ThreadID: p.ThreadID, Limit: p.Limit, Cursor: p.Cursor}
	if q.By == "" {
		q.By = UsageByDay
	}
	for _, f := range []struct {
		name, v string
		dst     *time.Time
	}{{"from", p.From, &q.From}, {"to", p.To, &q.To}} {
		if f.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.v)
		if err != nil {
			t, err = time.ParseInLocation(time.DateOnly, f.v, loc)
		}
		if err != nil {
			return UsageQuery{}, Errorf(CodeInvalidArgument, "%s must be an RFC 3339 time or a date YYYY-MM-DD", f.name)
		}
		*f.dst = t
	}
	return q, nil
}
