package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/acp"
	"github.com/switchboard-hub/switchboard/hub"
)

var _ hub.UsageService = (*Engine)(nil)

// usageUpdate stores a usage_update as the usage event (the raw report, as
// every update) and, in the same Write, as a record of the usage ledger;
// once committed, the budgets it may have reached are checked
// (budgets.go). Like every update it tells the turn's watchdog the agent
// is alive and gives compaction its share of the window used
// (noteUsageLocked, compact.go). Replayed updates (session/load) are
// none of these.
func (c *threadClient) usageUpdate(n acp.SessionNotification) {
	c.rt.mu.Lock()
	replaying, tr, model := c.rt.replaying, c.rt.turn, currentModel(c.rt.config)
	if tr != nil {
		tr.wd.touch() // a leaf lock
	}
	if !replaying {
		c.noteUsageLocked(n.Update, tr)
	}
	c.rt.mu.Unlock()
	if replaying {
		return
	}
	w := c.updateWrite(n.Update, tr, nil)
	if w == nil { // (an update always makes an event; kept for safety)
		w = &hub.Write{}
	}
	var u acp.UsageUpdate
	if json.Unmarshal(n.Update.Raw, &u) == nil {
		if m := metaModel(u.Meta); m != "" {
			model = m
		}
		rec := c.record(tr, n.SessionID, model, hub.UsageUpdate)
		rec.Used, rec.Size = hub.ClampTokens(u.Used), hub.ClampTokens(u.Size)
		if tr != nil {
			c.rt.mu.Lock()
			prev, seen := c.rt.reportedUsed, c.rt.usedSession == n.SessionID
			c.rt.reportedUsed, c.rt.usedSession = rec.Used, n.SessionID
			c.rt.mu.Unlock()
			if !seen && c.e.ledger != nil { // the session's first report here: from its last one
				if last, err := c.e.ledger.LastUsed(context.Background(), c.thread.ID, n.SessionID); err == nil {
					prev = last
				}
			}
			rec.InputTokens = c.e.noteTokens(tr, prev, rec.Used) // spend.go: in memory; the ledger's rule: recordPromptUsage
		}
		if u.Cost != nil && u.Cost.Currency != "" && len(u.Cost.Currency) <= 16 {
			if amount, ok := hub.ClampAmount(u.Cost.Amount); ok {
				rec.Amount, rec.Currency = &amount, u.Cost.Currency
				if tr != nil {
					tr.spend.costed.Store(true) // spend.go: no estimate for this turn
				}
			}
		}
		w.Usage = append(w.Usage, rec)
	}
	if rl := n.Update.RateLimit; rl != nil { // ratelimit.go: in the same write
		w.ThreadChanges = append(w.ThreadChanges, c.e.limitChange(c.thread.ID, rl.Until))
		c.e.armLimitTimer(c.thread.ID, rl.Until) // queue.go: cleared at the reset
	}
	c.e.commitUsage(w, tr)
}

// record is a ledger record of this thread's agent, in tr (nil: outside
// a turn).
func (c *threadClient) record(tr *turnRT, sessionID, model, kind string) hub.UsageRecord {
	r := hub.UsageRecord{At: c.e.now(), ThreadID: c.thread.ID, ClientID: c.thread.ClientID, Agent: c.thread.Agent,
		SessionID: sessionID, Model: model, Kind: kind}
	if tr != nil {
		r.TurnID = tr.turn.ID
	}
	return r
}

// recordPromptUsage stores the usage a prompt response carried (tokens)
// as a ledger record of tr.
//
// The ledger's tokens, one rule (issue 33): each usage_update of a running
// turn records the growth of the context window since the agent's last
// report as input tokens, at once (usageUpdate), so that budgets and the
// per-day plot see tokens as they are reported, before the turn ends and
// for an agent whose response reports none. A response that reports
// tokens (input + output > 0) gives the turn's exact figure, which
// replaces that growth: its record and the zeroing of the turn's
// usage_update tokens are one store transaction (the store's applyUsage),
// so a turn is counted once, by its response when it has one, else by its
// window's growth. The turn's tokens budgets' tallies move by the
// difference (which may be negative).
func (e *Engine) recordPromptUsage(tr *turnRT, agent *acp.Agent, sid string) {
	u := agent.TakePromptUsage(sid)
	if u == nil {
		return
	}
	tr.rt.mu.Lock()
	model := currentModel(tr.rt.config)
	tr.rt.mu.Unlock()
	c := threadClient{e: e, thread: tr.thread}
	rec := c.record(tr, sid, model, hub.UsagePrompt)
	rec.InputTokens, rec.OutputTokens = hub.ClampTokens(u.InputTokens), hub.ClampTokens(u.OutputTokens)
	rec.CachedTokens = hub.ClampTokens(u.CachedReadTokens) + hub.ClampTokens(u.CachedWriteTokens)
	rec.Estimate = e.estimate(tr, model, rec.InputTokens, rec.OutputTokens) // spend.go
	if exact := rec.InputTokens + rec.OutputTokens; exact > 0 {
		tr.spend.addTokens(exact - tr.spend.grown()) // spend.go: the growth replaced
	}
	e.commitAsync(&hub.Write{Usage: []hub.UsageRecord{rec}})
}

// commitUsage queues w (events and usage records) and, once committed,
// checks the budgets against what the records added.
func (e *Engine) commitUsage(w *hub.Write, tr *turnRT) {
	e.store.CommitAsync(w, func(w *hub.Write, err error) {
		if err != nil {
			e.log.Error("hub: storing a usage report failed", "err", err)
			return
		}
		e.bus.Enqueue(w.Events, nil)
		for _, r := range w.Usage {
			if r.Cost > 0 {
				go e.checkSpending(r, tr) // not on the writer goroutine: it reads the store
			}
		}
	})
}

// currentModel is the current value of the session's model option (an ACP
// config option of category "model", or id "model"), "" when unknown.
func currentModel(config json.RawMessage) string {
	var opts []struct {
		ID           string          `json:"id"`
		Category     string          `json:"category"`
		CurrentValue json.RawMessage `json:"currentValue"`
	}
	if json.Unmarshal(config, &opts) != nil {
		return ""
	}
	for _, o := range opts {
		if o.Category == "model" || o.ID == "model" {
			var v string
			if json.Unmarshal(o.CurrentValue, &v) == nil && len(v) <= 200 {
				return v
			}
		}
	}
	return ""
}

// metaModel is the model an agent names in a usage_update's _meta (ACP's
// usage_update has no model field: claude-agent-acp sends
// "_claude/model"), "" when none.
func metaModel(meta map[string]json.RawMessage) string {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if strings.HasSuffix(k, "/model") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		var v string
		if json.Unmarshal(meta[k], &v) == nil && v != "" && len(v) <= 200 {
			return v
		}
	}
	return ""
}

// Usage implements hub.UsageService.
func (e *Engine) Usage(ctx context.Context, c hub.Caller, q hub.UsageQuery) (hub.UsageReport, error) {
	us := e.ledger
	by := q.By
	switch by {
	case hub.UsageByDay:
		by = "slot"
	case hub.UsageByAgent, hub.UsageByThread, hub.UsageByModel, hub.UsageByTurn:
	default:
		return hub.UsageReport{}, hub.Errorf(hub.CodeInvalidArgument, "by must be day, agent, thread, model or turn, not %q", q.By)
	}
	if us == nil {
		return hub.UsageReport{}, hub.Errorf(hub.CodeInternal, "this hub keeps no usage ledger")
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return hub.UsageReport{}, hub.Errorf(hub.CodeInvalidArgument, "from must be before to")
	}
	if q.ThreadID != "" {
		if _, err := e.visibleThread(ctx, c, q.ThreadID); err != nil {
			return hub.UsageReport{}, err
		}
	}
	loc := q.Loc
	if loc == nil {
		loc = time.Local
	}
	rows, err := us.UsageRows(ctx, hub.UsageFilter{From: q.From, To: q.To, ClientID: c.ClientID, All: c.All, ThreadID: q.ThreadID}, by)
	if err != nil {
		return hub.UsageReport{}, err
	}
	rep := hub.UsageReport{Buckets: []hub.UsageBucket{}, From: q.From, To: q.To, Currency: e.config().Budgets.Currency, AgentsWithoutCost: []string{}, HeldBy: map[string]string{}}
	index := map[string]int{}
	costly, counted := map[string]bool{}, map[string]bool{}
	seen, timed := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		key := r.Key
		if q.By == hub.UsageByDay {
			sec, _ := strconv.ParseInt(r.Key, 10, 64)
			key = time.Unix(sec, 0).In(loc).Format(time.DateOnly)
		}
		i, ok := index[key]
		if !ok {
			i = len(rep.Buckets)
			index[key] = i
			rep.Buckets = append(rep.Buckets, hub.UsageBucket{Key: key, Cost: map[string]float64{}})
		}
		b := &rep.Buckets[i]
		if r.Currency != "" {
			b.Cost[r.Currency] = hub.SaturatingAdd(b.Cost[r.Currency], r.Cost)
		}
		b.InputTokens = satAddInt(b.InputTokens, r.InputTokens)
		b.OutputTokens = satAddInt(b.OutputTokens, r.OutputTokens)
		b.CachedTokens = satAddInt(b.CachedTokens, r.CachedTokens)
		b.Minutes += r.Seconds / 60
		b.Estimate = hub.SaturatingAdd(b.Estimate, r.Estimate)
		switch q.By {
		case hub.UsageByDay:
			if r.Currency != "" {
				if b.Agents == nil {
					b.Agents = map[string]map[string]float64{}
				}
				if b.Agents[r.Agent] == nil {
					b.Agents[r.Agent] = map[string]float64{}
				}
				b.Agents[r.Agent][r.Currency] = hub.SaturatingAdd(b.Agents[r.Agent][r.Currency], r.Cost)
			}
			if n := satAddInt(r.InputTokens, r.OutputTokens); n > 0 {
				if b.AgentTokens == nil {
					b.AgentTokens = map[string]int64{}
				}
				b.AgentTokens[r.Agent] = satAddInt(b.AgentTokens[r.Agent], n)
			}
		case hub.UsageByThread, hub.UsageByTurn:
			b.Agent, b.ThreadID, b.Used, b.Size = r.Agent, r.ThreadID, r.Used, r.Size
		}
		if r.Reported {
			seen[r.Agent] = true
		} else if !seen[r.Agent] {
			timed[r.Agent] = true
		}
		if r.HasCost {
			costly[r.Agent] = true
		}
		if r.InputTokens+r.OutputTokens > 0 {
			counted[r.Agent] = true
		}
	}
	for a := range seen {
		if a == "" {
			continue
		}
		if !costly[a] {
			rep.AgentsWithoutCost = append(rep.AgentsWithoutCost, a)
		}
		rep.HeldBy[a] = heldBy(costly[a], counted[a])
	}
	for a := range timed {
		if a != "" && !seen[a] {
			rep.HeldBy[a] = hub.HeldByMinutes
		}
	}
	sort.Strings(rep.AgentsWithoutCost)
	sort.SliceStable(rep.Buckets, func(i, j int) bool { return rep.Buckets[i].Key < rep.Buckets[j].Key })
	if rep.Buckets, rep.NextCursor, err = pageBuckets(rep.Buckets, q.Cursor, q.Limit); err != nil {
		return hub.UsageReport{}, err
	}
	if q.By == hub.UsageByThread {
		for i := range rep.Buckets {
			if th, err := e.store.GetThread(ctx, rep.Buckets[i].Key); err == nil {
				rep.Buckets[i].Title = th.Title
			}
		}
	}
	return rep, nil
}

// heldBy is the figure that holds an agent to its budgets
// (hub.UsageReport.HeldBy): its cost when it reports one, else its tokens
// when it reports them, else its agent time.
func heldBy(reportsCost, reportsTokens bool) string {
	switch {
	case reportsCost:
		return hub.HeldByCost
	case reportsTokens:
		return hub.HeldByTokens
	}
	return hub.HeldByMinutes
}

// pageBuckets is the page of buckets (sorted by key) after cursor (the
// base64url of the last key of the page before), at most limit of them
// (0: hub.MaxUsageBuckets), and the cursor of the next page ("" on the
// last).
func pageBuckets(bs []hub.UsageBucket, cursor string, limit int) ([]hub.UsageBucket, string, error) {
	if limit <= 0 || limit > hub.MaxUsageBuckets {
		limit = hub.MaxUsageBuckets
	}
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", hub.Errorf(hub.CodeInvalidArgument, "cursor is not one this hub gave")
		}
		i := sort.Search(len(bs), func(i int) bool { return bs[i].Key > string(after) })
		bs = bs[i:]
	}
	if len(bs) <= limit {
		return bs, "", nil
	}
	return bs[:limit], base64.RawURLEncoding.EncodeToString([]byte(bs[limit-1].Key)), nil
}

// satAddInt is a+b for non-negative token sums, saturating at MaxInt64.
func satAddInt(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
