import { describe, expect, it } from 'vitest';
import { Conversation, type Item } from './conversation.svelte';
import { ev } from '../test/fakeTransport';

const texts = (items: Item[]) => items.map((i) => (i.kind === 'message' || i.kind === 'thought' ? `${i.kind}:${i.text}` : i.kind));

describe('Conversation: the agent’s newer updates (issue 32)', () => {
  it('groups deltas by the agent’s message id, not by adjacency', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'message_started', { messageId: 'm1', kind: 'message' }));
    c.add(ev(3, 'message_delta', { text: 'Hello ' }));
    c.add(ev(4, 'message_started', { messageId: 'm2', kind: 'message' }));
    c.add(ev(5, 'message_delta', { text: 'Aside.' }));
    c.add(ev(6, 'message_started', { messageId: 'm1', kind: 'message' }));
    c.add(ev(7, 'message_delta', { text: 'world' }));
    expect(texts(c.turns[0].items)).toEqual(['message:Hello world', 'message:Aside.']);
  });

  it('keeps adjacency for deltas without an id, and a thought id apart from a message id', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'message_delta', { text: 'a' }));
    c.add(ev(3, 'message_delta', { text: 'b' }));
    c.add(ev(4, 'message_started', { messageId: 'x', kind: 'thought' }));
    c.add(ev(5, 'thought_delta', { text: 'hmm' }));
    c.add(ev(6, 'message_delta', { text: 'c' }));
    expect(texts(c.turns[0].items)).toEqual(['message:ab', 'thought:hmm', 'message:c']);
  });

  it('rebuilds the same grouping when an event arrives out of order', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(3, 'message_delta', { text: 'one ' }));
    c.add(ev(4, 'message_started', { messageId: 'm2', kind: 'message' }));
    c.add(ev(5, 'message_delta', { text: 'two' }));
    c.add(ev(6, 'message_started', { messageId: 'm1', kind: 'message' }));
    c.add(ev(7, 'message_delta', { text: 'three' }));
    c.add(ev(2, 'message_started', { messageId: 'm1', kind: 'message' }));
    expect(texts(c.turns[0].items)).toEqual(['message:one three', 'message:two']);
  });

  it('makes a notice an item, with its severity', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'notice', { notice: { severity: 'warning', title: 'Model switched', description: 'Opus is busy' } }));
    c.add(ev(3, 'notice', { notice: { severity: 'info' } })); // no title: nothing to show
    expect(c.turns[0].items).toMatchObject([{ kind: 'notice', severity: 'warning', title: 'Model switched', description: 'Opus is busy' }]);
  });

  it('makes one compaction item of its updates and summary chunks', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'compaction', { compaction: { compactionId: 'c1', status: 'in_progress' } }));
    c.add(ev(3, 'compaction_summary', { compactionId: 'c1', text: 'We renamed ' }));
    c.add(ev(4, 'compaction_summary', { compactionId: 'c1', text: 'the parser.' }));
    c.add(ev(5, 'compaction', { compaction: { compactionId: 'c1', status: 'completed' } }));
    expect(c.turns[0].items).toMatchObject([{ kind: 'compaction', compactionId: 'c1', status: 'completed', summary: 'We renamed the parser.' }]);
  });

  it('replaces and removes plans by id', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    const plan = (id: string, content: string) => ({ plan: { type: 'items', planId: id, entries: [{ content, priority: 'high', status: 'pending' }] } });
    c.add(ev(2, 'plan_update', plan('p1', 'first')));
    c.add(ev(3, 'plan_update', plan('p2', 'second')));
    c.add(ev(4, 'plan_update', plan('p1', 'first, again')));
    c.add(ev(5, 'plan_removed', { planId: 'p2' }));
    const items = c.turns[0].items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'plan', planId: 'p1', entries: [{ content: 'first, again' }] });
  });

  it('makes one card per sub-agent session, updated in place', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'subagent', { subagent: { sessionId: 's1', title: 'Explore tests', state: { state: 'running' } } }));
    c.add(ev(3, 'subagent', { subagent: { sessionId: 's1', state: { state: 'idle' } } }));
    expect(c.turns[0].items).toMatchObject([{ kind: 'subagent', sessionId: 's1', title: 'Explore tests', state: 'idle' }]);
  });

  it('gives a sub-agent its own stream, never the parent’s message', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go' }));
    c.add(ev(2, 'subagent', { subagent: { sessionId: 's1', title: 'Explore tests' } }));
    c.add(ev(3, 'subagent_output', { sessionId: 's1', kind: 'agent_message_chunk', text: 'Looking ' }));
    c.add(ev(4, 'message_delta', { text: 'Parent speaks.' }));
    c.add(ev(5, 'subagent_output', { sessionId: 's1', kind: 'agent_message_chunk', text: 'at the tests.' }));
    c.add(ev(6, 'subagent_output', { sessionId: 's1', kind: 'tool_call', toolCall: { toolCallId: 't9', title: 'Run the tests', status: 'pending' } }));
    c.add(ev(7, 'subagent_output', { sessionId: 's1', kind: 'tool_call_update', toolCall: { toolCallId: 't9', status: 'completed' } }));
    c.add(ev(8, 'subagent_output', { sessionId: 's2', kind: 'agent_message_chunk', text: 'unannounced' }));
    const items = c.turns[0].items;
    expect(texts(items)).toEqual(['subagent', 'message:Parent speaks.', 'subagent']);
    expect(items[0]).toMatchObject({ stream: { text: 'Looking at the tests.', tools: [{ toolCallId: 't9', title: 'Run the tests', status: 'completed' }] } });
    expect(items[2]).toMatchObject({ sessionId: 's2', stream: { text: 'unannounced' } });
  });
});
