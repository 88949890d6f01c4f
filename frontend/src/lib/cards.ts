// One card per tool call: which of a turn's permissions are shown inside
// the card of the tool call they ask about (ThreadView), and which keep a
// card of their own — the hub's own kinds (a terminal, a file outside the
// folder, git's settings, a spending limit) and an agent's request about a
// tool call the turn does not show.
import type { Item } from './conversation.svelte';
import type { Permission } from './types';

export interface Attached {
  /** The permissions shown in each tool item's card, by the item's key, oldest first. */
  byTool: Record<number, Permission[]>;
  /** The ids of the permissions shown in a tool call's card (their own items are not shown). */
  inside: Set<string>;
}

/** Matches items' permissions to the tool items of the same tool call id. */
export function attachPermissions(items: Item[], permissions: Record<string, Permission>): Attached {
  const tools = new Map<string, number>();
  for (const it of items) if (it.kind === 'tool') tools.set(it.toolCall.toolCallId, it.key);
  const out: Attached = { byTool: {}, inside: new Set() };
  for (const it of items) {
    if (it.kind !== 'permission') continue;
    const p = permissions[it.permissionId];
    if (!p || (p.kind && p.kind !== 'agent')) continue;
    const key = tools.get(p.toolCall?.toolCallId ?? '');
    if (key === undefined) continue;
    (out.byTool[key] ??= []).push(p);
    out.inside.add(p.id);
  }
  return out;
}
