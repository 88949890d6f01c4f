import { describe, expect, it } from 'vitest';
import { Conversation } from './conversation.svelte';
import { ev } from '../test/fakeTransport';

const tool = { toolCallId: 't1', title: 'Run make', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term_a' }] };

describe('Conversation: terminal output', () => {
  it('appends a terminal’s chunks by id, per turn, and sets the exit status last', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'build' }));
    // Output may come before the tool call that names the terminal.
    c.add(ev(2, 'terminal_output', { terminalId: 'term_a', text: 'one\n' }));
    c.add(ev(3, 'tool_call', { toolCall: tool }));
    c.add(ev(4, 'terminal_output', { terminalId: 'term_b', text: 'other' }));
    c.add(ev(5, 'terminal_output', { terminalId: 'term_a', text: 'two\n' }));
    expect(c.turns[0].terminals?.term_a).toEqual({ text: 'one\ntwo\n', dropped: false });
    c.add(ev(6, 'terminal_output', { terminalId: 'term_a', text: '', exitStatus: { exitCode: 2, signal: null } }));
    c.add(ev(7, 'terminal_output', { terminalId: 'term_b', text: '', exitStatus: { exitCode: null, signal: 'SIGTERM' }, dropped: true }));
    expect(c.turns[0].terminals).toEqual({
      term_a: { text: 'one\ntwo\n', dropped: false, exit: { exitCode: 2, signal: null } },
      term_b: { text: 'other', dropped: true, exit: { exitCode: null, signal: 'SIGTERM' } },
    });
    // Terminal output is not an item of its own: the tool card shows it.
    expect(c.turns[0].items.map((i) => i.kind)).toEqual(['tool']);

    // Another turn's terminal of the same id is its own.
    c.add(ev(8, 'terminal_output', { terminalId: 'term_a', text: 'new' }, 'th_1', 'tu_2'));
    expect(c.turns[1].terminals?.term_a.text).toBe('new');
    expect(c.turns[0].terminals?.term_a.text).toBe('one\ntwo\n');
  });

  it('rebuilds the same output from history and out-of-order events', () => {
    const c = new Conversation();
    c.add(ev(4, 'terminal_output', { terminalId: 'term_a', text: 'c', exitStatus: { exitCode: 0, signal: null } }));
    c.loadHistory([
      {
        id: 'tu_1', threadId: 'th_1', status: 'completed', input: 'x', output: '', startedAt: '',
        events: [ev(1, 'turn_started', { input: 'x' }), ev(2, 'terminal_output', { terminalId: 'term_a', text: 'a' })],
      },
    ]);
    c.add(ev(5, 'terminal_output', { terminalId: 'term_a', text: 'x' }, 'th_1', 'tu_9'));
    c.add(ev(3, 'terminal_output', { terminalId: 'term_a', text: 'b' })); // late: rebuilt in seq order
    expect(c.turns.find((t) => t.id === 'tu_1')?.terminals?.term_a).toEqual({ text: 'abc', dropped: false, exit: { exitCode: 0, signal: null } });
  });

  it('ignores malformed terminal_output events', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'x' }));
    c.add(ev(2, 'terminal_output', { text: 'no id' }));
    c.add(ev(3, 'terminal_output', { terminalId: 'term_a', text: 7 }));
    expect(c.turns[0].terminals).toEqual({ term_a: { text: '', dropped: false } });
  });
});
