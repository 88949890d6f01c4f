import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import ThreadView from './ThreadView.svelte';
import { Conversation } from '../lib/conversation.svelte';
import { ev, thread } from '../test/fakeTransport';

const props = (conversation: Conversation, over: Record<string, unknown> = {}) => ({
  thread: thread('th_1'),
  conversation,
  permissions: {},
  selfId: 'browser-test',
  ondecide: vi.fn(),
  ...over,
});

describe('ThreadView: the agent session changed (issue 14)', () => {
  it('says on the thread when a reopened session could not take back the mode, and that the message was not sent', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'go on' }));
    c.add(ev(2, 'mode_changed', { modeId: 'auto' }));
    c.add(ev(3, 'session_changed', {
      reason: 'reopened',
      how: 'loaded',
      restored: [],
      unrestored: [{ kind: 'mode', wanted: 'plan', current: 'auto', message: 'the agent no longer offers mode "plan"; the session is in mode "auto"' }],
      refused: true,
    }));
    c.add(ev(4, 'turn_completed', { turn: { status: 'failed', error: 'not sent' } }));
    render(ThreadView, props(c));
    const alert = screen.getAllByRole('alert').find((el) => el.hasAttribute('data-session-notice'));
    expect(alert).toBeTruthy();
    expect(alert!.textContent).toContain('could not take back your choices');
    expect(alert!.textContent).toContain('no longer offers mode "plan"');
    expect(alert!.textContent).toContain('This message was not sent');
  });

  it('shows a quiet line when everything was restored, nothing when nothing had to be', () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'a' }, 'th_1', 'tu_1'));
    c.add(ev(2, 'session_changed', { reason: 'reopened', how: 'resumed', restored: ['mode'], unrestored: [] }, 'th_1', 'tu_1'));
    c.add(ev(3, 'turn_started', { input: 'b' }, 'th_1', 'tu_2'));
    c.add(ev(4, 'session_changed', { reason: 'reopened', how: 'resumed', restored: [], unrestored: [] }, 'th_1', 'tu_2'));
    const { container } = render(ThreadView, props(c));
    const notes = container.querySelectorAll('[data-session-notice]');
    expect(notes).toHaveLength(1);
    expect(notes[0].textContent).toContain('restored: mode');
    expect(notes[0].getAttribute('role')).toBeNull();
  });

  it("hides the hub's own turns and shows the compaction's summary", () => {
    const c = new Conversation();
    c.add(ev(1, 'turn_started', { input: 'mine' }, 'th_1', 'tu_1'));
    c.add(ev(2, 'turn_started', { input: 'Summarize our conversation…', internal: true }, 'th_1', 'tu_2'));
    c.add(ev(3, 'message_delta', { text: 'the summary' }, 'th_1', 'tu_2'));
    const { container } = render(ThreadView, props(c, { thread: thread('th_1', { summary: 'We fixed the build.', compactedAt: '2026-11-25T09:00:00Z' }) }));
    expect(container.querySelectorAll('li.turn')).toHaveLength(1);
    const details = container.querySelector('[data-compacted]');
    expect(details?.textContent).toContain('We fixed the build.');
    expect(details?.querySelector('summary')?.textContent).toContain('Compacted');
  });
});
