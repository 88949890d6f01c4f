import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, thread } from '../test/fakeTransport';

describe('ThreadView: terminal output', () => {
  it('shows terminal_output events in the tool call’s card as they arrive', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'run tests' }));
    c.add(ev(2, 'tool_call', { toolCall: { toolCallId: 'c1', title: 'go test', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term_1' }] } }));
    render(ThreadView, { thread: thread('th_1'), conversation: c, permissions: {}, selfId: 'browser-test', ondecide: vi.fn() });
    expect(screen.getByText('term_1')).toBeTruthy(); // nothing printed yet

    c.add(ev(3, 'terminal_output', { terminalId: 'term_1', text: '=== RUN TestA\n' }));
    flushSync();
    expect(screen.getByLabelText('Terminal output').textContent).toBe('=== RUN TestA\n');
    expect(screen.getByText('running')).toBeTruthy();

    c.add(ev(4, 'terminal_output', { terminalId: 'term_1', text: 'ok\n', exitStatus: { exitCode: 0, signal: null } }));
    flushSync();
    expect(screen.getByLabelText('Terminal output').textContent).toBe('=== RUN TestA\nok\n');
    expect(screen.getByText('exit 0')).toBeTruthy();
  });
});
