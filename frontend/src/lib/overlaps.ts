// Overlapping work (issue 31 "Before two agents collide"): a thread's
// overlaps (Thread.overlaps: one entry per file and other thread) grouped
// by the other thread, as OverlapNotice shows them.
import type { Overlap, Thread } from './types';

/** How a thread's work meets another's: in the same checkout, or in two checkouts that would or would not merge. */
export type OverlapKind = 'same-checkout' | 'conflict' | 'clean';

export interface OverlapGroup {
  threadId: string;
  /** The other thread's title ("" when it is not in the list: another client's, or not loaded). */
  title: string;
  /** The files both changed, in the hub's order (sorted). */
  paths: string[];
  /** The files whose merge would conflict. */
  conflicts: string[];
  kind: OverlapKind;
}

/** The overlaps grouped by the other thread, in the order the hub gave them; titles looked up in threads (by id). */
export function overlapGroups(overlaps: Overlap[] | undefined, threads: Record<string, Thread>): OverlapGroup[] {
  const byId = new Map<string, OverlapGroup>();
  for (const o of overlaps ?? []) {
    let g = byId.get(o.threadId);
    if (!g) {
      g = { threadId: o.threadId, title: threads[o.threadId]?.title ?? '', paths: [], conflicts: [], kind: 'same-checkout' };
      byId.set(o.threadId, g);
    }
    g.paths.push(o.path);
    if (o.conflict === true) g.conflicts.push(o.path);
    if (o.conflict !== undefined && g.kind === 'same-checkout') g.kind = 'clean';
  }
  for (const g of byId.values()) if (g.conflicts.length) g.kind = 'conflict';
  return [...byId.values()];
}

/**
 * Whether thread should be told to isolate itself: it has no worktree and
 * shares a checkout with an older thread it overlaps (it is the second
 * agent in that checkout). Without the other's creation time, it is told.
 */
export function suggestWorktree(thread: Thread, groups: OverlapGroup[], threads: Record<string, Thread>): boolean {
  if (thread.worktree && !thread.worktree.discarded) return false;
  return groups.some((g) => {
    if (g.kind !== 'same-checkout') return false;
    const other = threads[g.threadId];
    return !other || other.createdAt <= thread.createdAt;
  });
}
