package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

var _ hub.UsageStore = (*DB)(nil)

// The usage ledger (migrations/0009_usage.sql). Its rows hold ids and
// numbers, never text: a thread's deletion leaves them (delete.go does not
// touch them), so what was spent stays spent.

const (
	lastAmountSQL = `SELECT amount FROM usage
		WHERE thread_id = ? AND session_id = ? AND currency = ? AND amount IS NOT NULL
		ORDER BY id DESC LIMIT 1`
	insertUsageSQL = `INSERT INTO usage
		(at, thread_id, turn_id, client_id, agent, session_id, model, kind, used, size, amount, currency, cost, input_tokens, output_tokens, cached_tokens, seconds, estimate)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// zeroLiveTokensSQL takes back the tokens a turn's usage_update
	// records counted (the window's growth), replaced by its response's
	// (migration 0023 indexes them).
	zeroLiveTokensSQL = `UPDATE usage SET input_tokens = 0 WHERE turn_id = ? AND kind = 'update' AND input_tokens <> 0`
	upsertOverrideSQL = `INSERT INTO budget_overrides (id, budget, thread_id, decided_by, at, used_by)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET used_by = excluded.used_by`
)

// usageSlot is the ledger's grouping unit for days: 15 minutes, a divisor
// of every time zone's offset, so that slots add up to local days.
const usageSlot = 15 * time.Minute

// applyUsage appends w.Usage to the ledger, setting each record's Cost,
// and upserts w.Overrides. A prompt record with tokens first takes back
// the tokens its turn's usage_update records counted: a turn's tokens are
// its response's when it reports them, else its window's growth (never
// both). Runs on the writer, inside the Write's
// transaction: the last amount it reads is the one committed before.
func (db *DB) applyUsage(ctx context.Context, w *hub.Write) error {
	for i := range w.Usage {
		u := &w.Usage[i]
		if u.ThreadID == "" || (u.Kind != hub.UsageUpdate && u.Kind != hub.UsagePrompt && u.Kind != hub.UsageTurn) {
			return invalid("store: usage record without thread or kind")
		}
		var amount any
		u.Cost = 0
		// The engine clamps what an agent reports (hub.ClampAmount,
		// hub.ClampTokens); so does the ledger, whoever writes to it: an
		// out-of-range amount carries no cost, a huge one counts as the
		// cap, and no row can make a sum infinite.
		u.Used, u.Size = hub.ClampTokens(u.Used), hub.ClampTokens(u.Size)
		u.InputTokens, u.OutputTokens = hub.ClampTokens(u.InputTokens), hub.ClampTokens(u.OutputTokens)
		u.CachedTokens = hub.ClampTokens(u.CachedTokens)
		if math.IsNaN(u.Seconds) || u.Seconds < 0 {
			u.Seconds = 0
		}
		u.Seconds = min(u.Seconds, hub.MaxUsageSeconds)
		if e, ok := hub.ClampAmount(u.Estimate); ok {
			u.Estimate = e
		} else {
			u.Estimate = 0
		}
		if u.Amount != nil {
			if a, ok := hub.ClampAmount(*u.Amount); ok {
				u.Amount = &a
			} else {
				u.Amount = nil
			}
		}
		if u.Amount != nil {
			a := *u.Amount
			amount = a
			var last float64
			err := db.conn.QueryRowContext(ctx, lastAmountSQL, u.ThreadID, u.SessionID, u.Currency).Scan(&last)
			switch {
			case errors.Is(err, sql.ErrNoRows) || math.IsNaN(last):
				u.Cost = a // a new session: a new baseline
			case err != nil:
				return fmt.Errorf("store: usage baseline: %w", err)
			case a >= last:
				u.Cost = a - last
			default:
				u.Cost = a // lower than the last: the agent restarted its count
			}
		}
		u.Cost = min(max(u.Cost, 0), hub.MaxUsageAmount) // last may predate the clamp (0015 repairs it)
		if u.Kind == hub.UsagePrompt && u.TurnID != "" && u.InputTokens+u.OutputTokens > 0 {
			// The turn's exact tokens replace the growth its
			// usage_updates recorded (the engine's recordPromptUsage).
			if _, err := db.conn.ExecContext(ctx, zeroLiveTokensSQL, u.TurnID); err != nil {
				return fmt.Errorf("store: usage: the turn's live tokens: %w", err)
			}
		}
		_, err := db.conn.ExecContext(ctx, insertUsageSQL, u.At.UnixMilli(), u.ThreadID, u.TurnID, u.ClientID, u.Agent,
			u.SessionID, u.Model, u.Kind, u.Used, u.Size, amount, u.Currency, u.Cost, u.InputTokens, u.OutputTokens, u.CachedTokens, u.Seconds, u.Estimate)
		if err != nil {
			return fmt.Errorf("store: insert usage: %w", err)
		}
	}
	for i := range w.Overrides {
		o := &w.Overrides[i]
		if o.ID == "" || o.Budget == "" || o.DecidedBy == "" {
			return invalid("store: budget override without id, budget or decidedBy")
		}
		if _, err := db.conn.ExecContext(ctx, upsertOverrideSQL, o.ID, o.Budget, o.ThreadID, o.DecidedBy, o.At.UnixMilli(), o.UsedBy); err != nil {
			return fmt.Errorf("store: budget override: %w", err)
		}
	}
	return nil
}

// usageWhere builds the WHERE clause and arguments of f. The texts come
// from a fixed set (the read statement cache stays bounded).
func usageWhere(f hub.UsageFilter) (string, []any) {
	to := int64(math.MaxInt64)
	if !f.To.IsZero() {
		to = f.To.UnixMilli()
	}
	from := int64(math.MinInt64)
	if !f.From.IsZero() {
		from = f.From.UnixMilli()
	}
	var b strings.Builder
	b.WriteString(" WHERE at >= ? AND at < ?")
	args := []any{from, to}
	if !f.All {
		b.WriteString(" AND client_id = ?")
		args = append(args, f.ClientID)
	}
	if f.ThreadID != "" {
		b.WriteString(" AND thread_id = ?")
		args = append(args, f.ThreadID)
	}
	if f.Agent != "" {
		b.WriteString(" AND agent = ?")
		args = append(args, f.Agent)
	}
	if f.Currency != "" {
		b.WriteString(" AND currency = ?")
		args = append(args, f.Currency)
	}
	return b.String(), args
}

// spentSums are what UsageSpent sums per measure (hub.UsageFilter.Measure).
var spentSums = map[string]string{
	hub.MeasureMoney:   "SUM(cost)",
	hub.MeasureTokens:  "SUM(input_tokens + output_tokens)",
	hub.MeasureMinutes: "SUM(seconds) / 60.0",
}

// UsageSpent implements hub.UsageStore.
func (db *DB) UsageSpent(ctx context.Context, f hub.UsageFilter) (float64, error) {
	sum, ok := spentSums[f.Measure]
	if !ok {
		return 0, invalid("store: unknown measure %q", f.Measure)
	}
	where, args := usageWhere(f)
	var spent float64
	if err := db.queryRow(ctx, "SELECT COALESCE("+sum+", 0) FROM usage"+where, args...).Scan(&spent); err != nil {
		return 0, fmt.Errorf("store: usage spent: %w", err)
	}
	return hub.FiniteCost(spent), nil
}

// usageKeys are the grouping expressions of UsageRows.
var usageKeys = map[string]string{
	"slot":            "CAST(at / " + strconv.FormatInt(usageSlot.Milliseconds(), 10) + " AS TEXT)",
	hub.UsageByAgent:  "agent",
	hub.UsageByThread: "thread_id",
	hub.UsageByModel:  "model",
	hub.UsageByTurn:   "turn_id",
}

// UsageRows implements hub.UsageStore. A slot key is the slot's start in
// Unix seconds.
func (db *DB) UsageRows(ctx context.Context, f hub.UsageFilter, by string) ([]hub.UsageRow, error) {
	key, ok := usageKeys[by]
	if !ok {
		return nil, invalid("store: unknown usage grouping %q", by)
	}
	where, args := usageWhere(f)
	q := "SELECT " + key + ", agent, currency, SUM(cost), SUM(input_tokens), SUM(output_tokens), SUM(cached_tokens), SUM(seconds), SUM(estimate), MAX(amount IS NOT NULL), MAX(kind <> 'turn'), MIN(thread_id) FROM usage" +
		where + " GROUP BY 1, 2, 3 ORDER BY 1"
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: usage rows: %w", err)
	}
	defer rows.Close()
	var out []hub.UsageRow
	for rows.Next() {
		var r hub.UsageRow
		if err := rows.Scan(&r.Key, &r.Agent, &r.Currency, &r.Cost, &r.InputTokens, &r.OutputTokens, &r.CachedTokens, &r.Seconds, &r.Estimate, &r.HasCost, &r.Reported, &r.ThreadID); err != nil {
			return nil, fmt.Errorf("store: usage rows: %w", err)
		}
		r.Cost, r.Estimate = hub.FiniteCost(r.Cost), hub.FiniteCost(r.Estimate)
		if by == "slot" {
			n, _ := strconv.ParseInt(r.Key, 10, 64)
			r.Key = strconv.FormatInt(n*int64(usageSlot/time.Second), 10)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: usage rows: %w", err)
	}
	if by != hub.UsageByThread && by != hub.UsageByTurn {
		return out, nil
	}
	// The context window of each thread or turn: its last report's.
	q = "SELECT " + key + ", used, size FROM usage WHERE id IN (SELECT MAX(id) FROM usage" + where + " AND size > 0 GROUP BY " + key + ")"
	crow, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: usage context: %w", err)
	}
	defer crow.Close()
	window := map[string][2]int64{}
	for crow.Next() {
		var k string
		var used, size int64
		if err := crow.Scan(&k, &used, &size); err != nil {
			return nil, fmt.Errorf("store: usage context: %w", err)
		}
		window[k] = [2]int64{used, size}
	}
	for i := range out {
		w := window[out[i].Key]
		out[i].Used, out[i].Size = w[0], w[1]
	}
	return out, crow.Err()
}

// UnusedOverride implements hub.UsageStore.
func (db *DB) UnusedOverride(ctx context.Context, budget, threadID string, since time.Time) (string, error) {
	var id string
	err := db.queryRow(ctx, `SELECT id FROM budget_overrides WHERE budget = ? AND used_by = '' AND thread_id = ? AND at >= ? ORDER BY at LIMIT 1`,
		budget, threadID, since.UnixMilli()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: budget override: %w", err)
	}
	return id, nil
}

// LastUsed implements hub.UsageStore.
func (db *DB) LastUsed(ctx context.Context, threadID, sessionID string) (int64, error) {
	var used int64
	err := db.queryRow(ctx, `SELECT used FROM usage WHERE thread_id = ? AND session_id = ? AND kind = 'update' AND size > 0
		ORDER BY id DESC LIMIT 1`, threadID, sessionID).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: last used: %w", err)
	}
	return used, nil
}
