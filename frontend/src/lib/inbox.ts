// The Approvals inbox's logic, apart from its view: the order of the
// pending requests, how a request reads in one line, and the selection the
// keyboard moves and toggles.
import type { Permission } from './types';
import { commandOf, describePermission } from './permissionView';

/**
 * Pending requests as the inbox lists them: escalated ones first (the
 * earliest escalated first), then the one with the least time left, then
 * the oldest. A new array; the input is not changed.
 */
export function inboxOrder(pending: Permission[]): Permission[] {
  return [...pending].sort(
    (a, b) =>
      Number(!a.escalatedAt) - Number(!b.escalatedAt) ||
      (a.escalatedAt ?? '').localeCompare(b.escalatedAt ?? '') ||
      (a.deadline ?? '').localeCompare(b.deadline ?? '') ||
      (a.createdAt ?? '').localeCompare(b.createdAt ?? '') ||
      a.id.localeCompare(b.id),
  );
}

export { commandOf };

/**
 * What a request asks, in one line: what the hub says it runs or touches
 * (permissionView), else the command or title of its tool call.
 */
export function requestText(p: Permission): string {
  return p.request ? describePermission(p).headline : commandOf(p.toolCall?.rawInput) || p.toolCall?.title || 'a tool call';
}

/** Seconds as m:ss, or h:mm:ss from an hour on. */
export function duration(s: number): string {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Whole seconds from now to an RFC 3339 deadline (never below 0), or NaN without one. */
export function secondsLeft(deadline: string, now: number): number {
  const ms = Date.parse(deadline);
  return Number.isNaN(ms) ? NaN : Math.max(0, Math.ceil((ms - now) / 1000));
}

/**
 * The ids a batch decision acts on: the selection (in list order), or the
 * current row when nothing is selected. Only ids still listed.
 */
export function batchTargets(order: string[], selected: ReadonlySet<string>, current: string | undefined): string[] {
  const sel = order.filter((id) => selected.has(id));
  if (sel.length) return sel;
  return current && order.includes(current) ? [current] : [];
}
