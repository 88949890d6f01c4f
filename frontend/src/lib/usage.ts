// Words for the agent's `usage` reports (ACP usage_update, raw; see types.ts Usage).
import type { Usage } from './types';

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const count = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

export function tokens(n: number): string {
  return n < 10_000 ? n.toLocaleString('en') : count.format(n);
}

export function money(c: Usage['cost']): string {
  if (!c || typeof c.amount !== 'number') return '';
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: c.currency || 'USD', maximumFractionDigits: c.amount < 1 ? 4 : 2 }).format(c.amount);
  } catch {
    return `${c.amount} ${c.currency ?? ''}`.trim();
  }
}

/** The parts of a turn's usage line: tokens in/out (or total), context, cost. */
export function usageParts(u: Usage | undefined): string[] {
  if (!u) return [];
  const out = tokenParts(u);
  const ctx = contextLine(u);
  if (ctx) out.push(ctx);
  const cost = money(u.cost);
  if (cost) out.push(cost);
  return out;
}

/** "context 1,234 / 200k (1%)", or "" when the agent did not say. */
export function contextLine(u: Usage | undefined): string {
  const used = num(u?.used);
  const size = num(u?.size);
  if (used === undefined) return '';
  if (!size) return `context ${tokens(used)} tokens`;
  return `context ${tokens(used)} / ${tokens(size)} (${Math.round((used / size) * 100)}%)`;
}

/** How full the context is, 0..1, or undefined. */
export function contextFraction(u: Usage | undefined): number | undefined {
  const used = num(u?.used);
  const size = num(u?.size);
  return used !== undefined && size ? Math.min(1, used / size) : undefined;
}

/**
 * A turn's footer: its tokens and what it cost (the ledger's rise in that
 * turn, cost: "" when unknown). Said once: the agent's own cost figure
 * (cumulative for its session) and the context line (by the composer)
 * are not repeated here.
 */
export function footerParts(u: Usage | undefined, cost: string): string[] {
  const out = tokenParts(u);
  if (cost) out.push(`cost ${cost}`);
  return out;
}

/** "1.2k tokens in, 340 out, 900 cached" (or "1.5k tokens"), as a list of 0 or 1 part. */
function tokenParts(u: Usage | undefined): string[] {
  const inT = num(u?.inputTokens);
  const outT = num(u?.outputTokens);
  const total = num(u?.totalTokens);
  const cached = (num(u?.cachedReadTokens) ?? 0) + (num(u?.cachedWriteTokens) ?? 0);
  if (inT !== undefined || outT !== undefined)
    return [`${tokens(inT ?? 0)} tokens in, ${tokens(outT ?? 0)} out${cached > 0 ? `, ${tokens(cached)} cached` : ''}`];
  return total !== undefined ? [`${tokens(total)} tokens`] : [];
}
