import { describe, expect, it } from 'vitest';
import { attachmentNames, Conversation } from './conversation.svelte';
import { ev } from '../test/fakeTransport';

const commands = [
  { name: 'review', description: 'Review the changes', input: { hint: 'what to look at' } },
  { name: 'init', description: 'Write AGENTS.md' },
];

describe('Conversation: commands, usage, attachments', () => {
  it('keeps the latest available_commands, with or without a turn', () => {
    const c = new Conversation();
    // Right after session/new: no turn yet.
    c.add(ev(1, 'available_commands', { commands }, 'th_1', ''));
    expect(c.commands.map((x) => x.name)).toEqual(['review', 'init']);
    expect(c.turns).toHaveLength(0);
    c.add(ev(2, 'turn_started', { input: 'x' }));
    c.add(ev(3, 'available_commands', { commands: [commands[1], { description: 'no name' }] }));
    expect(c.commands.map((x) => x.name)).toEqual(['init']);
    expect(c.turns[0].items).toEqual([]);
  });

  it('keeps commands across a history load and an out-of-order event', () => {
    const c = new Conversation();
    c.add(ev(1, 'available_commands', { commands }, 'th_1', ''));
    c.loadHistory([
      { id: 'tu_1', threadId: 'th_1', status: 'completed', input: 'x', output: '', startedAt: '', events: [ev(2, 'turn_started', { input: 'x' })] },
    ]);
    expect(c.commands).toHaveLength(2);
    // A late, older event rebuilds: the newest list (seq 5) still wins.
    c.add(ev(5, 'available_commands', { commands: [commands[0]] }, 'th_1', ''));
    c.add(ev(4, 'available_commands', { commands: [commands[1]] }, 'th_1', ''));
    expect(c.commands.map((x) => x.name)).toEqual(['review']);
  });

  it('puts usage on its turn and keeps the latest context size', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'x' }));
    c.add(ev(2, 'usage', { usage: { sessionUpdate: 'usage_update', used: 1234, size: 200000, cost: { amount: 0.0123, currency: 'USD' } } }));
    c.add(ev(3, 'usage', { usage: { inputTokens: 10, outputTokens: 20 } }));
    expect(c.turns[0].usage).toEqual({ inputTokens: 10, outputTokens: 20 });
    expect(c.usage).toMatchObject({ used: 1234, size: 200000 });
    c.add(ev(4, 'usage', { usage: { used: 2000, size: 200000 } }, 'th_1', ''));
    expect(c.usage?.used).toBe(2000);
  });

  it('names the attachments of a prompt sent as content blocks', () => {
    expect(
      attachmentNames([
        { type: 'text', text: 'look' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///home/me/a%20b.txt', text: 'x' } },
        { type: 'resource_link', uri: 'file:///x/Makefile', name: 'Makefile' },
      ]),
    ).toEqual(['image', 'a b.txt', 'Makefile']);
    const c = new Conversation();
    c.loadHistory([
      { id: 'tu_1', threadId: 'th_1', status: 'completed', input: 'x', output: '', startedAt: '', content: [{ type: 'resource_link', uri: 'file:///m', name: 'm.go' }] },
    ]);
    expect(c.turns[0].attachments).toEqual(['m.go']);
  });

  it('merges updates of many tool calls, each into its own card', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'x' }));
    let seq = 2;
    for (let i = 0; i < 500; i++) c.add(ev(seq++, 'tool_call', { toolCall: { toolCallId: `c${i}`, title: `t${i}`, status: 'pending' } }));
    for (let i = 0; i < 500; i++) c.add(ev(seq++, 'tool_call_update', { toolCall: { toolCallId: `c${i}`, status: 'completed' } }));
    const items = c.turns[0].items;
    expect(items).toHaveLength(500);
    expect(items.every((it) => it.kind === 'tool' && it.toolCall.status === 'completed')).toBe(true);
    expect(items[499]).toMatchObject({ toolCall: { title: 't499' } });
  });

  it('builds 200 turns from 10 000 in-order events', () => {
    const c = new Conversation();
    for (let i = 0; i < 10_000; i++) {
      const turn = `tu_${Math.floor(i / 50)}`;
      if (i % 50 === 0) c.add(ev(i + 1, 'turn_started', { input: `q${i}` }, 'th_1', turn));
      else if (i % 10 === 0) c.add(ev(i + 1, 'tool_call', { toolCall: { toolCallId: `c${i}`, title: 'Read' } }, 'th_1', turn));
      else c.add(ev(i + 1, i % 2 ? 'message_delta' : 'thought_delta', { text: 'x' }, 'th_1', turn));
    }
    expect(c.turns).toHaveLength(200);
    expect(c.lastSeq).toBe(10_000);
    // thought, message alternate; every 10th event is a tool call.
    expect(c.turns[199].items.filter((it) => it.kind === 'tool')).toHaveLength(4);
  });
});

describe('Conversation: a long output', () => {
  it('shows the whole message when turn_completed carries its output cut', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'x' }));
    const chunk = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(16) + ' '; // 577 bytes
    for (let i = 0; i < 200; i++) c.add(ev(2 + i, 'message_delta', { text: chunk }));
    const whole = chunk.repeat(200); // 115,400 bytes
    c.add(ev(300, 'turn_completed', { turn: { id: 'tu_1', status: 'completed', output: whole.slice(0, 65536), outputBytes: whole.length, outputTruncated: true } }));
    const text = c.turns[0].items.map((it) => (it.kind === 'message' ? it.text : '')).join('');
    expect(text).toBe(whole);
    expect(c.turns[0].status).toBe('completed');
  });
});
