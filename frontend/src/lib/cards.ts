// One card per tool call: which of a turn's permissions are shown inside
// the card of the tool call they ask about (ThreadView), and which keep a
// card of their own — the hub's own kinds (a terminal, a file outside the
// folder, git's settings, a spending limit) and an agent's request about a
// tool call the turn does not show. A terminal that ran under an approval
// shown in the turn ("covered:<id>", kept for the audit) is not shown
// again: that approval's card says it. A sub-agent's request is shown
// inside the sub-agent's card when the turn shows that card.
import type { Item } from './conversation.svelte';
import type { Permission } from './types';

export interface Attached {
  /** The permissions shown in each tool item's card, by the item's key, oldest first. */
  byTool: Record<number, Permission[]>;
  /** The sub-agents' permissions shown in their card, by the child's session id, oldest first. */
  bySubagent: Record<string, Permission[]>;
  /** The ids of the permissions not shown as items of their own: in a tool call's card, or covered by one shown. */
  inside: Set<string>;
  /** Of those, the ones not shown at all: terminals covered by an approval the turn shows. */
  covered: Set<string>;
}

const coveredPrefix = 'covered:';

/** Matches items' permissions to the tool items of the same tool call id. */
export function attachPermissions(items: Item[], permissions: Record<string, Permission>): Attached {
  const tools = new Map<string, number>();
  const children = new Set<string>();
  for (const it of items) {
    if (it.kind === 'tool') tools.set(it.toolCall.toolCallId, it.key);
    else if (it.kind === 'subagent') children.add(it.sessionId);
  }
  const out: Attached = { byTool: {}, bySubagent: {}, inside: new Set(), covered: new Set() };
  const here = new Set(items.flatMap((it) => (it.kind === 'permission' ? [it.permissionId] : [])));
  for (const it of items) {
    if (it.kind !== 'permission') continue;
    const p = permissions[it.permissionId];
    if (p?.decidedBy?.startsWith(coveredPrefix) && here.has(p.decidedBy.slice(coveredPrefix.length))) {
      out.inside.add(p.id);
      out.covered.add(p.id);
      continue;
    }
    if (!p || (p.kind && p.kind !== 'agent')) continue;
    const child = p.request?.subagent?.sessionId;
    if (child && children.has(child)) {
      (out.bySubagent[child] ??= []).push(p);
      out.inside.add(p.id);
      continue;
    }
    const key = tools.get(p.toolCall?.toolCallId ?? '');
    if (key === undefined) continue;
    (out.byTool[key] ??= []).push(p);
    out.inside.add(p.id);
  }
  return out;
}
