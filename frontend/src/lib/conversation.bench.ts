// npx vitest bench --run src/lib/conversation.bench.ts
import { bench, describe } from 'vitest';
import { Conversation } from './store.svelte';
import type { HubEvent } from './types';

function events(n: number, perTurn = 50): HubEvent[] {
  const out: HubEvent[] = [];
  for (let i = 0; i < n; i++) {
    const turnId = `tu_${Math.floor(i / perTurn)}`;
    const base = { seq: i + 1, threadId: 'th_1', turnId, at: '2026-11-21T07:00:00Z' };
    if (i % perTurn === 0) out.push({ ...base, type: 'turn_started', input: `q${i}` });
    else if (i % 10 === 0) out.push({ ...base, type: 'tool_call', toolCall: { toolCallId: `c${i}`, title: 'Read' } });
    else out.push({ ...base, type: i % 2 ? 'message_delta' : 'thought_delta', text: 'chunk ' });
  }
  return out;
}

const tenK = events(10_000);
const oneK = events(1_000);

describe('Conversation', () => {
  bench('add 1 000 events in order', () => {
    const c = new Conversation();
    for (const e of oneK) c.add(e);
  });
  bench('add 10 000 events in order (200 turns)', () => {
    const c = new Conversation();
    for (const e of tenK) c.add(e);
  });
  bench('loadHistory of 10 000 events', () => {
    const c = new Conversation();
    const turns = new Map<string, HubEvent[]>();
    for (const e of tenK) turns.set(e.turnId, [...(turns.get(e.turnId) ?? []), e]);
    c.loadHistory(
      [...turns].map(([id, evs]) => ({ id, threadId: 'th_1', status: 'completed', input: '', output: '', startedAt: '', events: evs })),
    );
  });
});
