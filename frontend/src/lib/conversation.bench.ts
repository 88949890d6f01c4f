// npx vitest bench --run src/lib/conversation.bench.ts
import { bench, describe } from 'vitest';
import { Conversation } from './conversation.svelte';
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

// A message streaming at 1000+ chunks a second: the store applies a frame's
// chunks at once (~17 a frame at 1000/s), then the view re-renders only the
// message's last markdown block.
import { renderMarkdown, splitBlocks } from './markdown';

describe('streaming one message', () => {
  const chunk = 'Some words of an answer, with `code` and **bold**. ';
  bench('1 000 chunks: 60 frames of add ×17 + split + render the last block', () => {
    const c = new Conversation();
    let seq = 1;
    c.add({ seq: seq++, type: 'turn_started', threadId: 'th_1', turnId: 'tu_1', at: '', input: 'q' });
    for (let f = 0; f < 60; f++) {
      for (let i = 0; i < 17; i++) {
        c.add({ seq: seq++, type: 'message_delta', threadId: 'th_1', turnId: 'tu_1', at: '', text: i === 16 ? chunk + '\n\n' : chunk });
      }
      const item = c.turns[0].items[0];
      const blocks = splitBlocks(item.kind === 'message' ? item.text : '');
      renderMarkdown(blocks[blocks.length - 1]);
    }
  });
});
