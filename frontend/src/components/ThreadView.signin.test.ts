import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { createRawSnippet } from 'svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, thread } from '../test/fakeTransport';

// The thread view offers "Sign in to <agent>" (the signin snippet: SignIn
// in the app) under the last turn when it failed because the agent needs
// signing in, and marks the turn the hub sends again after the sign-in.
const signin = createRawSnippet((agent: () => string) => ({ render: () => `<p>sign in to ${agent()}</p>` }));

const props = (conversation: Conversation) => ({
  thread: thread('th_1'),
  conversation,
  permissions: {},
  selfId: 'browser-test',
  ondecide: vi.fn(),
  signin,
});

function failed(c: Conversation, seq: number, turn: string, reason?: string) {
  c.add(ev(seq, 'turn_started', { input: `hello ${turn}` }, 'th_1', turn));
  c.add(ev(seq + 1, 'error', { code: 'UPSTREAM_UNAVAILABLE', message: 'Codex needs signing in', ...(reason ? { reason, agent: 'codex' } : {}) }, 'th_1', turn));
  c.add(ev(seq + 2, 'turn_completed', { turn: { status: 'failed', error: 'Codex needs signing in' } }, 'th_1', turn));
}

describe('ThreadView sign-in', () => {
  it('offers the sign-in under the last turn refused for want of one, not for other errors', () => {
    const c = new Conversation();
    failed(c, 1, 'tu_1', 'AUTH_REQUIRED');
    failed(c, 4, 'tu_2', 'AUTH_REQUIRED');
    render(ThreadView, props(c));
    expect(screen.getAllByText('sign in to codex')).toHaveLength(1); // the last turn's only
    const last = document.querySelector('li.turn[data-turn-id="tu_2"]')!;
    expect(last.querySelector('[data-signin-needed]')?.textContent).toBe('sign in to codex');

    const other = new Conversation();
    failed(other, 1, 'tu_1');
    const { container } = render(ThreadView, props(other));
    expect(container.querySelector('[data-signin-needed]')).toBeNull();
  });

  it('stops offering it once the retry runs, which is marked as sent again', () => {
    const c = new Conversation();
    failed(c, 1, 'tu_1', 'AUTH_REQUIRED');
    c.add(ev(4, 'turn_started', { input: 'hello tu_1', retryOf: 'tu_1' }, 'th_1', 'tu_2'));
    c.add(ev(5, 'message_delta', { text: 'hi' }, 'th_1', 'tu_2'));
    const { container } = render(ThreadView, props(c));
    expect(container.querySelector('[data-signin-needed]')).toBeNull();
    const retry = container.querySelector('li.turn[data-turn-id="tu_2"]')!;
    expect(retry.textContent).toContain('Sent again after signing in');
    expect(c.turns[1].retryOf).toBe('tu_1');
  });
});
