// The usage ledger's types (GET /v1/usage) and what the Usage view draws
// from them: pure functions, tested without a DOM.

export type UsageBy = 'day' | 'agent' | 'thread' | 'model' | 'turn';

export type UsageQuery = { by: UsageBy; from?: string; to?: string; tz?: string; threadId?: string; limit?: number; cursor?: string };

export type UsageBucket = {
  key: string;
  cost: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  /** Cached tokens (read and written), not in input or output. */
  cachedTokens?: number;
  /** Agent time: running turns less the time a person was asked. */
  minutes?: number;
  /** Tokens reported without a cost, at budgets.prices, in the report's currency: an estimate, never spent. */
  estimate?: number;
  agents?: Record<string, Record<string, number>>;
  /** by=day: input + output tokens by agent. */
  agentTokens?: Record<string, number>;
  agent?: string;
  title?: string;
  threadId?: string;
  used?: number;
  size?: number;
};

export type UsageReport = {
  buckets: UsageBucket[];
  from?: string;
  to?: string;
  currency?: string;
  agentsWithoutCost: string[];
  /** Per agent, the figure its budgets hold it by. */
  heldBy?: Record<string, 'cost' | 'tokens' | 'minutes'>;
  /** Set when buckets follow (GET /v1/usage pages at 10,000 without a limit). */
  nextCursor?: string;
};

/** The IANA time zone of this window or browser ("" when unknown). */
export function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    return '';
  }
}

/** YYYY-MM-DD of d in local time. */
export function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** A stacked bar per day: its segments by agent, in the budgets' currency or in tokens (input + output). */
export type DayBar = { day: string; total: number; segments: { agent: string; value: number }[] };

export function dayBars(rep: UsageReport | undefined, currency: string, days?: string[], measure: 'cost' | 'tokens' = 'cost'): DayBar[] {
  const bars = (rep?.buckets ?? []).map((b) => {
    const byAgent: [string, number][] =
      measure === 'tokens'
        ? Object.entries(b.agentTokens ?? {})
        : Object.entries(b.agents ?? {}).map(([agent, c]) => [agent, c[currency] ?? 0]);
    const segments = byAgent
      .map(([agent, value]) => ({ agent, value }))
      .filter((s) => s.value > 0)
      .sort((a, b) => a.agent.localeCompare(b.agent));
    return { day: b.key, total: segments.reduce((n, s) => n + s.value, 0), segments };
  });
  if (!days) return bars;
  const by = new Map(bars.map((b) => [b.day, b]));
  return days.map((day) => by.get(day) ?? { day, total: 0, segments: [] });
}

/** The n local dates that end with today, oldest first. */
export function lastDays(n: number, now = new Date()): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() - i)));
  return out;
}

/** The threads that cost most in currency, at most n, most first. */
export function topThreads(rep: UsageReport | undefined, currency: string, n = 8): UsageBucket[] {
  return [...(rep?.buckets ?? [])]
    .filter((b) => (b.cost[currency] ?? 0) > 0)
    .sort((a, b) => (b.cost[currency] ?? 0) - (a.cost[currency] ?? 0))
    .slice(0, n);
}

/** The currencies reported besides currency (shown, never counted). */
export function otherCurrencies(rep: UsageReport | undefined, currency: string): string[] {
  const s = new Set<string>();
  for (const b of rep?.buckets ?? []) for (const c of Object.keys(b.cost)) if (c !== currency) s.add(c);
  return [...s].sort();
}

/** An amount with its currency, e.g. "1.25 USD" (4 decimals under 0.01). */
export function money(v: number, currency: string): string {
  return `${v > 0 && v < 0.01 ? v.toFixed(4) : v.toFixed(2)} ${currency}`;
}

/** What holds an agent to its budgets (UsageReport.heldBy), in words. */
export function heldByText(by: 'cost' | 'tokens' | 'minutes' | string): string {
  if (by === 'cost') return 'its cost';
  if (by === 'tokens') return 'its tokens (it reports no cost)';
  return 'its agent time only (it reports neither cost nor tokens)';
}

/**
 * An amount of the budget named budget, in its measure: tokens for
 * "tokens.…" ("12,400 tokens"), agent time for "minutes.…" ("25 min"),
 * money for the others ("1.25 USD").
 */
export function spendText(v: number, budget: string, currency: string): string {
  if (budget.startsWith('tokens.')) return `${Math.round(v).toLocaleString('en')} tokens`;
  if (budget.startsWith('minutes.')) return `${v < 10 ? v.toFixed(1) : Math.round(v)} min`;
  return money(v, currency);
}

/** A stable colour per agent. */
export function agentColour(agent: string): string {
  let h = 0;
  for (const ch of agent) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h} 60% 50%)`;
}

/**
 * Costs of a report's buckets by key, as text ("0.15 USD · 0.50 EUR"); a
 * bucket with no cost but an estimate from the prices says so
 * ("≈ 0.0270 USD, estimated").
 */
export function costTexts(rep: UsageReport | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of rep?.buckets ?? []) {
    const parts = Object.entries(b.cost)
      .filter(([, v]) => v > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, v]) => money(v, c));
    if (parts.length) out[b.key] = parts.join(' · ');
    else if ((b.estimate ?? 0) > 0) out[b.key] = `≈ ${money(b.estimate!, rep?.currency || 'USD')}, estimated`;
  }
  return out;
}

/** The sum of a report's costs per currency. */
export function totals(rep: UsageReport | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of rep?.buckets ?? []) for (const [c, v] of Object.entries(b.cost)) out[c] = (out[c] ?? 0) + v;
  return out;
}

/** A turn refused because a budget is spent (409, details.reason BUDGET_EXCEEDED). */
export type BudgetRefusal = { threadId: string; budget: string; currency: string; spent: number; limit: number; message: string };

/** The refusal err is, for a turn of threadId; undefined for any other error. */
export function budgetRefusal(err: unknown, threadId: string): BudgetRefusal | undefined {
  const e = err as { code?: string; details?: Record<string, unknown>; message?: string } | undefined;
  const d = e?.details;
  if (e?.code !== 'CONFLICT' || d?.reason !== 'BUDGET_EXCEEDED' || typeof d.budget !== 'string') return undefined;
  return {
    threadId,
    budget: d.budget,
    currency: typeof d.currency === 'string' ? d.currency : '',
    spent: typeof d.spent === 'number' ? d.spent : 0,
    limit: typeof d.limit === 'number' ? d.limit : 0,
    message: e.message ?? '',
  };
}

/** What a budget_warning or budget_exceeded event says, as one line; undefined for any other event. */
export function budgetNotice(e: { type: string; [k: string]: unknown }): string | undefined {
  if (e.type !== 'budget_warning' && e.type !== 'budget_exceeded') return undefined;
  const budget = typeof e.budget === 'string' ? e.budget : '?';
  const cur = typeof e.currency === 'string' ? e.currency : '';
  const spent = typeof e.spent === 'number' ? e.spent : 0;
  const limit = typeof e.limit === 'number' ? e.limit : 0;
  const pct = limit > 0 ? Math.floor((spent / limit) * 100) : 0;
  return e.type === 'budget_warning'
    ? `The ${budget} budget is at ${pct} %: ${money(spent, cur)} of ${money(limit, cur)}.`
    : `The ${budget} budget is spent (${money(spent, cur)} of ${money(limit, cur)}): the turn that crossed it was cancelled, and new turns it covers are refused until it is raised in Settings or one more turn is allowed.`;
}
